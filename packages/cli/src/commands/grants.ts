import type { GrantRecord } from '@keyhold/oauth-core';
import { EXIT, type ExitCode } from '../io.js';
import type { Command } from '../main.js';
import { printable } from './claim/render.js';
import { type CommandContext, fail, parse, print } from './command-context.js';
import { HOST_STORE_OPTIONS, HOST_STORE_OPTIONS_HELP, withHostServer } from './host-server.js';
import { printListing } from './listing.js';
import { commandOfSubcommands } from './subcommands.js';

const LIST_USAGE = `Usage: keyhold grants list [--user <id>] [--client <id>] [options]

Lists the tenant's active grants (what a person authorized an application to do, or a machine client's own),
each with its id, client id, user, scopes, creation and last use.

Options:
  --user <id>         only this user's grants
  --client <id>       only this client's grants (a registered id or a metadata-document URL)
  --all               revoked grants too, with when and why
${HOST_STORE_OPTIONS_HELP}`;

const REVOKE_USAGE = `Usage: keyhold grants revoke <grant_id> [options]

Revokes a grant: its access tokens are refused at the next request on every resource and instance, its
refresh tokens stop working, and the user's remembered consent for the client is forgotten.

Options:
${HOST_STORE_OPTIONS_HELP}`;

const USAGE = `Usage: keyhold grants list|revoke [options]

  list      list grants, by user or client
  revoke    revoke one grant (its tokens are refused at the next request)

Run "keyhold grants <subcommand> --help" for its options.
`;

/** The store hands out pages of at most this many grants, ordered by id. */
const PAGE = 1000;

/**
 * The `keyhold grants` command: `list [--user <id>] [--client <id>] [--all]` lists grants, `revoke <grant_id>`
 * revokes one. It opens the host's store like `keyhold clients`. Exit codes: 0 success, 1 the operation failed
 * (unknown grant, store unreachable), 2 usage error.
 *
 * @example
 * ```ts
 * await runCli(['grants', 'list', '--client', 'https://app.example/client.json'], io, { grants: grantsCommand });
 * ```
 */
export const grantsCommand: Command = commandOfSubcommands('grants', USAGE, { list, revoke });

async function list(args: readonly string[], context: CommandContext): Promise<ExitCode> {
  const parsed = parse(
    args,
    { ...HOST_STORE_OPTIONS, user: { type: 'string' }, client: { type: 'string' }, all: { type: 'boolean' } },
    0,
    LIST_USAGE,
    context,
  );
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  return withHostServer(context, values, async (server, tenant) => {
    const grants: GrantRecord[] = [];
    for (;;) {
      const after = grants.at(-1)?.grantId;
      const page = await server.grants.list(tenant, {
        limit: PAGE,
        ...(values.user === undefined ? {} : { userId: values.user }),
        ...(values.client === undefined ? {} : { clientId: values.client }),
        ...(values.all === true ? { includeRevoked: true } : {}),
        ...(after === undefined ? {} : { afterGrantId: after }),
      });
      grants.push(...page);
      if (page.length < PAGE) break;
    }
    return printListing(context, {
      json: () => ({ grants: grants.map(describe) }),
      count: grants.length,
      empty: `No grants in tenant "${tenant}".`,
      table: () => [
        [
          'GRANT ID',
          'CLIENT ID',
          'USER',
          'SCOPES',
          'CREATED',
          'LAST USED',
          ...(values.all ? ['REVOKED'] : []),
        ],
        ...grants.map((grant) => [
          grant.grantId,
          printable(grant.clientId),
          printable(grant.userId),
          grant.scopes.length === 0 ? '-' : printable(grant.scopes.join(' ')),
          new Date(grant.createdAt).toISOString(),
          new Date(grant.lastUsedAt).toISOString(),
          ...(values.all
            ? [
                grant.revokedAt === undefined
                  ? '-'
                  : `${new Date(grant.revokedAt).toISOString()} (${printable(grant.revokedReason ?? '')})`,
              ]
            : []),
        ]),
      ],
    });
  });
}

async function revoke(args: readonly string[], context: CommandContext): Promise<ExitCode> {
  const parsed = parse(args, HOST_STORE_OPTIONS, 1, REVOKE_USAGE, context, 'the grant id to revoke');
  if (typeof parsed === 'number') return parsed;
  const [grantId = ''] = parsed.positionals;
  return withHostServer(context, parsed.values, async (server, tenant) => {
    const outcome = await server.grants.revoke(tenant, grantId);
    if (!outcome.ok) {
      return fail(
        context,
        EXIT.failure,
        'unknown_grant',
        `No grant ${printable(grantId)} in tenant "${tenant}".`,
      );
    }
    if (context.json) print(context, { revoked: true, grant: describe(outcome.grant) });
    else context.io.stdout(`Revoked grant ${grantId} of client ${printable(outcome.grant.clientId)}.\n`);
    return EXIT.ok;
  });
}

function describe(grant: GrantRecord): Record<string, unknown> {
  return {
    grantId: grant.grantId,
    clientId: grant.clientId,
    userId: grant.userId,
    kind: grant.kind,
    scopes: grant.scopes,
    resources: grant.resources,
    offlineAccess: grant.offlineAccess,
    createdAt: new Date(grant.createdAt).toISOString(),
    lastUsedAt: new Date(grant.lastUsedAt).toISOString(),
    ...(grant.revokedAt === undefined
      ? {}
      : { revokedAt: new Date(grant.revokedAt).toISOString(), revokedReason: grant.revokedReason }),
  };
}
