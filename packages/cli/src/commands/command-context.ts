import { resolve } from 'node:path';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { type CliIo, EXIT, type ExitCode } from '../io.js';
import type { Style } from './claim/render.js';

/** The environment variable naming the data directory, shared with the host (ARCHITECTURE.md). */
export const DATA_DIR_ENV = 'KEYHOLD_DATA_DIR';

/** What a subcommand needs beyond its own arguments. */
export interface CommandContext {
  /** The command's name, for messages (`keyhold <command>: …`). */
  readonly command: string;
  readonly io: CliIo;
  readonly json: boolean;
  readonly style: Style;
  readonly now: number;
}

type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig['options']>;
type Parsed<O extends ParseArgsOptionsConfig> = ReturnType<
  typeof parseArgs<{ options: O; allowPositionals: true }>
>;

/**
 * Parses arguments strictly; answers an exit code when it printed help or a usage error instead.
 * `positionalName` names the one positional a subcommand takes, for the error when it is missing.
 */
export function parse<O extends ParseArgsOptionsConfig>(
  args: readonly string[],
  options: O,
  positionalCount: number,
  usageText: string,
  context: CommandContext,
  positionalName = 'argument',
): Pick<Parsed<O>, 'values' | 'positionals'> | ExitCode {
  let parsed: Parsed<O>;
  try {
    parsed = parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (error) {
    return usage(context, error instanceof Error ? error.message : String(error), usageText);
  }
  if ((parsed.values as { help?: boolean }).help === true) {
    context.io.stdout(usageText);
    return EXIT.ok;
  }
  if (parsed.positionals.length !== positionalCount) {
    const message =
      positionalCount === 0
        ? `Unexpected argument "${parsed.positionals[0]}".`
        : parsed.positionals.length === 0
          ? `Missing ${positionalName}.`
          : `Give exactly one ${positionalName.replace(/^the /, '')}.`;
    return usage(context, message, usageText);
  }
  return { values: parsed.values, positionals: parsed.positionals };
}

/** The data directory: the flag, else `$KEYHOLD_DATA_DIR`, else `./.keyhold`, resolved against the cwd. */
export function dataDirFrom(flag: string | undefined, io: CliIo): string {
  const fromEnv = io.env[DATA_DIR_ENV];
  return resolve(io.cwd, flag ?? (fromEnv === undefined || fromEnv === '' ? '.keyhold' : fromEnv));
}

/** Prints a value as indented JSON. */
export function print(context: CommandContext, value: unknown): void {
  context.io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}

/** A usage error: the message and the usage text (or a JSON error), exit code 2. */
export function usage(context: CommandContext, message: string, usageText: string): ExitCode {
  if (context.json) return fail(context, EXIT.usage, 'usage', message);
  context.io.stderr(`keyhold ${context.command}: ${message}\n\n${usageText}`);
  return EXIT.usage;
}

/** A failed operation: the message (or a JSON error with a code) and the exit code given. */
export function fail(context: CommandContext, exit: ExitCode, code: string, message: string): ExitCode {
  if (context.json) print(context, { error: { code, message } });
  else context.io.stderr(`keyhold ${context.command}: ${message}\n`);
  return exit;
}
