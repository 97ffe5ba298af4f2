// The dispatch of a command made of subcommands (`keyhold clients …`, `keyhold grants …`): one place for the
// help, the usage exit code and the refusal of an unknown subcommand.
import { EXIT, type ExitCode } from '../io.js';
import type { Command } from '../main.js';
import { printable, styleFor } from './claim/render.js';
import { type CommandContext, usage } from './command-context.js';

/** One subcommand: its own arguments (after the subcommand's name) and the command's context. */
export type Subcommand = (args: readonly string[], context: CommandContext) => Promise<ExitCode>;

/**
 * The command `name` that runs one of `subcommands` by its first argument. No argument prints `usageText`
 * with exit code 2, `--help`/`-h` prints it with 0, and an unknown name is a usage error.
 */
export function commandOfSubcommands(
  name: string,
  usageText: string,
  subcommands: Readonly<Record<string, Subcommand>>,
): Command {
  return async (args, io) => {
    const json = args.includes('--json');
    const context: CommandContext = { command: name, io, json, style: styleFor(io), now: Date.now() };
    const [subcommand, ...rest] = args;
    if (subcommand === undefined || subcommand === '--help' || subcommand === '-h') {
      io.stdout(usageText);
      return subcommand === undefined ? EXIT.usage : EXIT.ok;
    }
    const run = subcommands[subcommand];
    if (!Object.hasOwn(subcommands, subcommand) || run === undefined) {
      return usage(context, `unknown subcommand "${printable(subcommand)}"`, usageText);
    }
    return run(rest, context);
  };
}
