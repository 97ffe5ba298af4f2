/**
 * Where a command reads its environment and writes its output; injected so tests and other programs can
 * run the CLI in-process.
 *
 * @example
 * ```ts
 * const io: CliIo = { stdout: (s) => process.stdout.write(s), stderr: (s) => process.stderr.write(s),
 *   env: process.env, cwd: process.cwd(), stdoutIsTTY: process.stdout.isTTY === true };
 * ```
 */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly stdoutIsTTY: boolean;
}

/**
 * Exit codes of the `keyhold` command: 0 success, 1 the operation failed (unknown code, registry error),
 * 2 usage error (bad flag or value).
 */
export const EXIT: { readonly ok: 0; readonly failure: 1; readonly usage: 2 } = Object.freeze({
  ok: 0,
  failure: 1,
  usage: 2,
} as const);

/** One exit code of {@link EXIT}. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
