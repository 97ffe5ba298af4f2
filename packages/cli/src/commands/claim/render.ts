import type { CliIo } from '../../io.js';

/** ANSI styling that is on only for a terminal, and never with `NO_COLOR` (https://no-color.org). */
export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  accent(text: string): string;
}

/**
 * The style for this invocation.
 *
 * @example
 * ```ts
 * io.stdout(`${styleFor(io).bold('ABC-DEF')}\n`);
 * ```
 */
export function styleFor(io: CliIo): Style {
  const noColor = io.env.NO_COLOR;
  const on = io.stdoutIsTTY && (noColor === undefined || noColor === '');
  const wrap = (open: number, close: number) => (text: string) =>
    on ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return { bold: wrap(1, 22), dim: wrap(2, 22), accent: wrap(36, 39) };
}

export { printable } from '../../terminal.js';

/**
 * Lays out rows as left-aligned columns separated by two spaces; the first row is the header.
 *
 * @example
 * ```ts
 * table([['CODE', 'SCOPE'], ['ABC-DEF', '/p']]);
 * ```
 */
export function table(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, [...cell].length);
    });
  }
  return rows.map((row) =>
    row
      .map((cell, i) =>
        i === row.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - [...cell].length),
      )
      .join('  ')
      .trimEnd(),
  );
}
