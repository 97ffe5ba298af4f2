import manifest from '../package.json' with { type: 'json' };
import { type CliIo, EXIT, type ExitCode } from './io.js';

/** A `keyhold` subcommand: receives the arguments after its name. */
export type Command = (args: readonly string[], io: CliIo) => Promise<ExitCode>;

const USAGE = `Usage: keyhold <command> [options]

Commands:
  claim       create, list and revoke claim codes
  clients     provision, list, remove and block the host's OAuth clients
  doctor      check which MCP clients can sign in to a deployment, and why not
  events      the decision timeline of a client or a user, each event with its reason
  grants      list and revoke the grants people gave applications
  providers   list, get, search and add MCP providers from the registry

Options:
  -h, --help     show this help
  -v, --version  print the version of @keyhold/cli

Run "keyhold <command> --help" for a command's options.
`;

/**
 * Runs the `keyhold` command with `argv` (without the node and script paths) and returns its exit code.
 *
 * @example
 * ```ts
 * process.exitCode = await runCli(process.argv.slice(2), nodeIo());
 * ```
 */
export async function runCli(
  argv: readonly string[],
  io: CliIo,
  commands: Readonly<Record<string, Command>> = {},
): Promise<ExitCode> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(USAGE);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    io.stdout(`${manifest.version}\n`);
    return EXIT.ok;
  }
  const command = commands[name];
  if (command === undefined) {
    io.stderr(`keyhold: unknown command "${name}"\n\n${USAGE}`);
    return EXIT.usage;
  }
  return command(rest, io);
}
