import { EXIT, type ExitCode } from '../io.js';
import type { Command } from '../main.js';
import { styleFor } from './claim/render.js';
import { type CommandContext, fail, parse, print } from './command-context.js';
import { FetchRefusedError } from './doctor/bounded-fetch.js';
import { checkClient } from './doctor/client-checks.js';
import { CLIENT_PROFILES } from './doctor/client-profiles.js';
import { corsFindings } from './doctor/cors.js';
import { discover } from './doctor/discovery.js';
import { doctorReport, doctorText } from './doctor/render.js';

const USAGE = `Usage: keyhold doctor <issuer-or-mcp-url> [--json]

Replays the sign-in of the MCP clients people use (Claude, ChatGPT, VS Code, Cursor, the MCP SDK of both
eras, the Inspector in a browser) against a deployment's metadata, without a user and without registering
anything, and prints what each client would hit, with the fix.

Options:
  --json      machine-readable report on stdout
  -h, --help  show this help

Every request is bounded (256 KiB, 5 s); plain http is used only for loopback addresses.
Exit codes: 0 every client would get through, 1 at least one would fail, 2 usage error.
`;

/** Options of {@link createDoctorCommand}; tests and embedding programs inject these. */
export interface DoctorCommandOptions {
  /** The `fetch` every request goes through (default: the global one). */
  fetch?: typeof fetch;
}

/** `keyhold doctor` with its requests going through `options.fetch`. */
export function createDoctorCommand(options: DoctorCommandOptions = {}): Command {
  const fetchImpl = options.fetch ?? fetch;
  return async (args, io) => {
    const json = args.includes('--json');
    const context: CommandContext = { command: 'doctor', io, json, style: styleFor(io), now: Date.now() };
    const parsed = parse(
      args,
      { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      1,
      USAGE,
      context,
      'the issuer or MCP URL',
    );
    if (typeof parsed === 'number') return parsed;
    const target = parsed.positionals[0]!;
    if (!URL.canParse(target) || !/^https?:$/.test(new URL(target).protocol)) {
      return fail(context, EXIT.usage, 'usage', `"${target}" is not an http(s) URL.`);
    }
    return run(fetchImpl, target, context);
  };
}

async function run(fetchImpl: typeof fetch, target: string, context: CommandContext): Promise<ExitCode> {
  try {
    const discovery = await discover(fetchImpl, target);
    const browser = CLIENT_PROFILES.find((profile) => profile.browserOrigin !== undefined);
    const cors =
      browser?.browserOrigin === undefined || discovery.authorizationServerMetadata === undefined
        ? []
        : await corsFindings(fetchImpl, discovery, browser.browserOrigin);
    const report = doctorReport(
      discovery,
      CLIENT_PROFILES.map((profile) => checkClient(profile, discovery, cors)),
    );
    if (context.json) print(context, report);
    else context.io.stdout(doctorText(report, context.style));
    return report.ok ? EXIT.ok : EXIT.failure;
  } catch (cause) {
    if (!(cause instanceof FetchRefusedError)) throw cause;
    return fail(context, EXIT.failure, 'unreachable', cause.message);
  }
}

/** `keyhold doctor <issuer-or-mcp-url> [--json]`. */
export const doctorCommand: Command = createDoctorCommand();
