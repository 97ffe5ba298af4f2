import { resolve } from 'node:path';
import type { ClaimStore } from '@keyhold/claim-codes';
import {
  ClaimCodesError,
  type ClaimRecord,
  type Claims,
  createClaims,
  formatClaimCode,
} from '@keyhold/claim-codes';
import { createFileClaimStore } from '@keyhold/claim-codes/node';
import { type CliIo, EXIT, type ExitCode } from '../io.js';
import type { Command } from '../main.js';
import { formatSeconds, parseDuration } from './claim/duration.js';
import { printable, styleFor } from './claim/render.js';
import {
  type CommandContext,
  DATA_DIR_ENV,
  dataDirFrom,
  fail,
  parse,
  print,
  usage,
} from './command-context.js';
import { printListing } from './listing.js';

const MAX_TTL_SECONDS = 365 * 86_400;
const DATABASE_URL_ENV = 'DATABASE_URL';
const HEADER_NAME = 'Mcp-Claim-Code';

const CREATE_USAGE = `Usage: keyhold claim [--scope <dir>] [--ttl <duration>] [--label <text>] [--json]
       keyhold claim list [--json]
       keyhold claim revoke <code> [--json]

Creates a claim code: a short code that narrows an MCP session to the tool modules under one directory.

Options:
  --scope <dir>       directory the code is tied to (default: the current directory)
  --ttl <duration>    lifetime: 30m, 1h, 2h, 7d, 90s, 1h30m … up to 365d (default: 24h)
  --label <text>      a note shown by "keyhold claim list"
  --data-dir <dir>    where claims.json lives (default: $${DATA_DIR_ENV}, else ./.keyhold);
                      with $${DATABASE_URL_ENV} set, the host's PostgreSQL database is used instead
  --json              print JSON for scripts
  -h, --help          show this help
`;

const LIST_USAGE = `Usage: keyhold claim list [--json] [--data-dir <dir>]

Lists the active claim codes (expired ones are removed).

Options:
  --data-dir <dir>    where claims.json lives (default: $${DATA_DIR_ENV}, else ./.keyhold);
                      with $${DATABASE_URL_ENV} set, the host's PostgreSQL database is used instead
  --json              print JSON for scripts
  -h, --help          show this help
`;

const REVOKE_USAGE = `Usage: keyhold claim revoke <code> [--json] [--data-dir <dir>]

Removes a claim code; a session that presents it is refused from its next request on (never widened).

Options:
  --data-dir <dir>    where claims.json lives (default: $${DATA_DIR_ENV}, else ./.keyhold);
                      with $${DATABASE_URL_ENV} set, the host's PostgreSQL database is used instead
  --json              print JSON for scripts
  -h, --help          show this help
`;

const COMMON_OPTIONS = {
  'data-dir': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Context = CommandContext;

/**
 * The `keyhold claim` command: `claim` creates a code, `claim list` lists active codes, `claim revoke <code>`
 * removes one. The codes live where the example host reads them: in its PostgreSQL database when
 * `DATABASE_URL` is set, else in `claims.json` in the data directory. Exit codes: 0 success, 1 the operation
 * failed (unknown code, unreadable claim file, database unreachable),
 * 2 usage error (bad flag or value).
 *
 * @example
 * ```ts
 * await runCli(process.argv.slice(2), io, { claim: claimCommand });
 * ```
 */
export const claimCommand: Command = async (args, io) => {
  const json = args.includes('--json');
  const context: Context = { command: 'claim', io, json, style: styleFor(io), now: Date.now() };
  const at = subcommandIndex(args);
  const subcommand = at === undefined ? undefined : args[at];
  const rest = at === undefined ? args : [...args.slice(0, at), ...args.slice(at + 1)];
  try {
    if (subcommand === 'list') return await list(rest, context);
    if (subcommand === 'revoke') return await revoke(rest, context);
    return await create(args, context);
  } catch (error) {
    if (error instanceof StoreUnavailable) {
      return fail(context, EXIT.failure, 'store_unavailable', error.message);
    }
    if (error instanceof ClaimCodesError) {
      const usage =
        error.code === 'ERR_INVALID_SCOPE' ||
        error.code === 'ERR_INVALID_LABEL' ||
        error.code === 'ERR_INVALID_TTL';
      return fail(context, usage ? EXIT.usage : EXIT.failure, error.code, error.message);
    }
    throw error;
  }
};

const VALUE_FLAGS = new Set(['--scope', '--ttl', '--label', '--data-dir']);

/** Where `list` or `revoke` stands, so flags may come first (`keyhold claim --data-dir x list`). */
function subcommandIndex(args: readonly string[]): number | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (VALUE_FLAGS.has(arg)) {
      i++;
      continue;
    }
    if (arg === '--') return undefined;
    if (arg.startsWith('-')) continue;
    return arg === 'list' || arg === 'revoke' ? i : undefined;
  }
  return undefined;
}

async function create(args: readonly string[], context: Context): Promise<ExitCode> {
  const parsed = parse(
    args,
    { ...COMMON_OPTIONS, scope: { type: 'string' }, ttl: { type: 'string' }, label: { type: 'string' } },
    0,
    CREATE_USAGE,
    context,
  );
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  let ttlSeconds = 86_400;
  if (values.ttl !== undefined) {
    const duration = parseDuration(values.ttl, MAX_TTL_SECONDS);
    if (!duration.ok) return usage(context, duration.message, CREATE_USAGE);
    ttlSeconds = duration.seconds;
  }
  const claim = await withClaims(values['data-dir'], context.io, (claims) =>
    claims.create({
      scopeDir: resolve(context.io.cwd, values.scope ?? '.'),
      ttlSeconds,
      ...(values.label === undefined ? {} : { label: values.label }),
    }),
  );
  const code = formatClaimCode(claim.code);
  const expiresIn = Math.round((claim.expiresAt - claim.createdAt) / 1000);
  if (context.json) {
    print(context, { ...describe(claim, claim.createdAt), header: `${HEADER_NAME}: ${code}` });
    return EXIT.ok;
  }
  const { bold, dim, accent } = context.style;
  const lines = [
    `${dim('Claim code')}  ${bold(code)}`,
    `${dim('Scope     ')}  ${printable(claim.scopeDir)}`,
    `${dim('Expires in')}  ${formatSeconds(expiresIn)} ${dim(`(${new Date(claim.expiresAt).toISOString()})`)}`,
    ...(claim.label === undefined ? [] : [`${dim('Label     ')}  ${printable(claim.label)}`]),
    '',
    // Stateless MCP serving has no SSE stream URL (GET answers 405): the code goes on every POST.
    'Send this header with every MCP request (or add ?claim=<code> to the MCP endpoint URL):',
    `  ${accent(`${HEADER_NAME}: ${code}`)}`,
  ];
  context.io.stdout(`${lines.join('\n')}\n`);
  return EXIT.ok;
}

async function list(args: readonly string[], context: Context): Promise<ExitCode> {
  const parsed = parse(args, COMMON_OPTIONS, 0, LIST_USAGE, context);
  if (typeof parsed === 'number') return parsed;
  const claims = await withClaims(parsed.values['data-dir'], context.io, (service) => service.list());
  return printListing(context, {
    json: () => ({ claims: claims.map((claim) => describe(claim, context.now)) }),
    count: claims.length,
    empty: 'No active claim codes. Create one with "keyhold claim".',
    table: () => [
      ['CODE', 'SCOPE', 'LABEL', 'EXPIRES IN'],
      ...claims.map((claim) => [
        formatClaimCode(claim.code),
        printable(claim.scopeDir),
        claim.label === undefined ? '-' : printable(claim.label),
        formatSeconds((claim.expiresAt - context.now) / 1000),
      ]),
    ],
  });
}

async function revoke(args: readonly string[], context: Context): Promise<ExitCode> {
  const parsed = parse(args, COMMON_OPTIONS, 1, REVOKE_USAGE, context, 'the claim code to revoke');
  if (typeof parsed === 'number') return parsed;
  const [input = ''] = parsed.positionals;
  const result = await withClaims(parsed.values['data-dir'], context.io, (claims) => claims.revoke(input));
  if (result.ok) {
    const code = formatClaimCode(result.claim.code);
    if (context.json) print(context, { revoked: true, code });
    else
      context.io.stdout(`Revoked ${code}. A session that presents it is refused from its next request on.\n`);
    return EXIT.ok;
  }
  if (result.reason === 'malformed') return usage(context, result.message, REVOKE_USAGE);
  return fail(context, EXIT.failure, 'unknown_code', `No active claim code ${formatClaimCode(result.code)}.`);
}

/**
 * Runs `use` on the claim service over the host's store: PostgreSQL when `DATABASE_URL` is set (the
 * database every host instance reads), else `claims.json` in the data directory. The pool is closed after.
 */
async function withClaims<T>(
  dataDirFlag: string | undefined,
  io: CliIo,
  use: (claims: Claims) => Promise<T>,
): Promise<T> {
  const databaseUrl = io.env[DATABASE_URL_ENV];
  const service = (store: ClaimStore) => createClaims({ store, maxTtlSeconds: MAX_TTL_SECONDS });
  if (databaseUrl === undefined || databaseUrl === '') {
    return use(service(createFileClaimStore({ dataDir: dataDirFrom(dataDirFlag, io) })));
  }
  const { createPostgresPool, createPostgresStores } = await import('@keyhold/store-postgres');
  const pool = createPostgresPool(databaseUrl);
  try {
    return await use(service((await createPostgresStores(pool)).claims));
  } catch (error) {
    if (error instanceof ClaimCodesError) throw error;
    // Never echo the error: a database URL may carry a password.
    const code = (error as { code?: unknown })?.code;
    throw new StoreUnavailable(
      `could not use the host's database (${typeof code === 'string' ? code : error instanceof Error ? error.name : 'unknown error'})`,
    );
  } finally {
    await pool.end().catch(() => {});
  }
}

/** The database named by DATABASE_URL could not be reached or used. */
class StoreUnavailable extends Error {}

function describe(claim: ClaimRecord, now: number): Record<string, unknown> {
  return {
    code: formatClaimCode(claim.code),
    scopeDir: claim.scopeDir,
    ...(claim.label === undefined ? {} : { label: claim.label }),
    createdAt: new Date(claim.createdAt).toISOString(),
    expiresAt: new Date(claim.expiresAt).toISOString(),
    expiresInSeconds: Math.max(0, Math.round((claim.expiresAt - now) / 1000)),
  };
}
