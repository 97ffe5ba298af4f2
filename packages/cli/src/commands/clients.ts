import { resolve } from 'node:path';
import type {
  ClientAdministration,
  ClientJwks,
  ClientProvisionInput,
  ClientRecord,
  TokenEndpointAuthMethod,
} from '@keyhold/oauth-core';
import { EXIT, type ExitCode } from '../io.js';
import type { Command } from '../main.js';
import { printable } from './claim/render.js';
import { type CommandContext, fail, parse, print, usage } from './command-context.js';
import {
  describeError,
  HOST_STORE_OPTIONS,
  HOST_STORE_OPTIONS_HELP as WHERE,
  withHostServer,
} from './host-server.js';
import { printListing } from './listing.js';
import { commandOfSubcommands } from './subcommands.js';

const ADD_USAGE = `Usage: keyhold clients add --grant <type> [--grant <type> …] [options]

Provisions a client at the host's authorization server. Provisioned clients may use the machine grants
that anonymous registration refuses (client_credentials, token exchange, jwt-bearer) and never expire. The client
secret is printed once; only its SHA-256 is stored. A private_key_jwt client gets no secret: it signs
its token requests with a key from the key set given by --jwks-uri or --jwks.

Options:
  --grant <type>              client_credentials, authorization_code, refresh_token,
                              urn:ietf:params:oauth:grant-type:token-exchange or
                              urn:ietf:params:oauth:grant-type:jwt-bearer (ID-JAGs; repeatable)
  --name <text>               the client's name
  --scope <scopes>            space-separated scopes the client may ask for
  --redirect-uri <uri>        for authorization_code (repeatable)
  --auth-method <method>      client_secret_basic (default), client_secret_post, private_key_jwt or none
  --jwks-uri <https url>      private_key_jwt: where the client publishes its public keys
  --jwks <file.json>          private_key_jwt: a file holding the client's public key set ({"keys": […]});
                              give exactly one of --jwks-uri and --jwks
  --exchange-audience <uri>   an audience the client may ask a token exchange for (repeatable)
${WHERE}`;

const LIST_USAGE = `Usage: keyhold clients list [options]

Lists the tenant's clients: provisioned, dynamically registered (with their expiry) and their grants.

Options:
${WHERE}`;

const REMOVE_USAGE = `Usage: keyhold clients remove <client_id> [options]

Deletes a client: its refresh tokens stop working at once, its access tokens run out within their lifetime.

Options:
${WHERE}`;

const BLOCK_USAGE = `Usage: keyhold clients block <client_id> [options]

Blocks a client id, registered or a Client ID Metadata Document URL (it need not be known): authorize shows
a page naming it as blocked, refresh fails (invalid_grant), and every grant of it is revoked, so its access
tokens are refused at the next request. Prints how many grants were revoked.

Options:
${WHERE}`;

const UNBLOCK_USAGE = `Usage: keyhold clients unblock <client_id> [options]

Lifts a block. The grants the block revoked stay revoked: people authorize the client again.

Options:
${WHERE}`;

const USAGE = `Usage: keyhold clients add|list|remove|block|unblock [options]

  add       provision a client (machine grants included); prints its secret once
  list      list the tenant's clients
  remove    delete a client
  block     block a client id (a metadata-document URL too) and revoke its grants
  unblock   lift a block

Run "keyhold clients <subcommand> --help" for its options.
`;

const COMMON_OPTIONS = HOST_STORE_OPTIONS;

const AUTH_METHODS: readonly TokenEndpointAuthMethod[] = [
  'client_secret_basic',
  'client_secret_post',
  'private_key_jwt',
  'none',
];

/** Runs `body` with `server.clients` over the host's store (see host-server.ts). */
function withAdministration(
  context: CommandContext,
  values: { readonly tenant?: string | undefined; readonly 'data-dir'?: string | undefined },
  body: (admin: ClientAdministration, tenant: string) => Promise<ExitCode>,
): Promise<ExitCode> {
  return withHostServer(context, values, (server, tenant) => body(server.clients, tenant));
}

/**
 * A subcommand on one client (`remove`, `block`, `unblock`): its id is the one positional argument, the usage
 * error for a missing one names the `verb`, and `body` runs on the tenant's client administration.
 */
async function withNamedClient(
  args: readonly string[],
  context: CommandContext,
  usageText: string,
  verb: string,
  body: (admin: ClientAdministration, tenant: string, clientId: string) => Promise<ExitCode>,
): Promise<ExitCode> {
  const parsed = parse(args, COMMON_OPTIONS, 1, usageText, context, `the client id to ${verb}`);
  if (typeof parsed === 'number') return parsed;
  const [clientId = ''] = parsed.positionals;
  return withAdministration(context, parsed.values, (admin, tenant) => body(admin, tenant, clientId));
}

/**
 * The `keyhold clients` command: `add` provisions a client (the way a host allows machine grants),
 * `list` lists a tenant's clients, `remove <client_id>` deletes one, `block <client_id>` blocks one (and
 * revokes its grants), `unblock <client_id>` lifts a block. It opens the example host's store:
 * PostgreSQL when `DATABASE_URL` is set, else `keyhold.db` in the data directory. Exit codes: 0 success,
 * 1 the operation failed (unknown client, store unreachable), 2 usage error.
 *
 * @example
 * ```ts
 * await runCli(['clients', 'add', '--grant', 'client_credentials'], io, { clients: clientsCommand });
 * ```
 */
export const clientsCommand: Command = commandOfSubcommands('clients', USAGE, {
  add,
  list,
  remove,
  block,
  unblock,
});

async function add(args: readonly string[], context: CommandContext): Promise<ExitCode> {
  const parsed = parse(
    args,
    {
      ...COMMON_OPTIONS,
      grant: { type: 'string', multiple: true },
      name: { type: 'string' },
      scope: { type: 'string' },
      'redirect-uri': { type: 'string', multiple: true },
      'auth-method': { type: 'string' },
      'exchange-audience': { type: 'string', multiple: true },
      'jwks-uri': { type: 'string' },
      jwks: { type: 'string' },
    },
    0,
    ADD_USAGE,
    context,
  );
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  const grantTypes = values.grant ?? [];
  if (grantTypes.length === 0) return usage(context, 'Give at least one --grant.', ADD_USAGE);
  const authMethod = values['auth-method'] ?? 'client_secret_basic';
  if (!AUTH_METHODS.includes(authMethod as TokenEndpointAuthMethod)) {
    return usage(context, `--auth-method must be one of ${AUTH_METHODS.join(', ')}.`, ADD_USAGE);
  }
  const keys = await clientKeys(authMethod, values['jwks-uri'], values.jwks, context);
  if (typeof keys === 'number') return keys;
  return withAdministration(context, values, async (admin, tenant) => {
    const created = await admin.provision(tenant, {
      grantTypes,
      tokenEndpointAuthMethod: authMethod as TokenEndpointAuthMethod,
      ...(values['redirect-uri'] === undefined ? {} : { redirectUris: values['redirect-uri'] }),
      ...(values.name === undefined ? {} : { clientName: values.name }),
      ...(values.scope === undefined ? {} : { scope: values.scope }),
      ...(values['exchange-audience'] === undefined
        ? {}
        : { tokenExchangeAudiences: values['exchange-audience'] }),
      ...keys,
    });
    if (context.json) {
      print(context, {
        ...describe(created.record, context.now),
        ...(created.clientSecret === undefined ? {} : { clientSecret: created.clientSecret }),
      });
      return EXIT.ok;
    }
    const { bold, dim } = context.style;
    const lines = [
      `${dim('Client id    ')}  ${bold(created.clientId)}`,
      ...(created.clientSecret === undefined
        ? []
        : [`${dim('Client secret')}  ${bold(created.clientSecret)}  ${dim('(shown once)')}`]),
      `${dim('Grants       ')}  ${created.record.grantTypes.join(' ')}`,
      `${dim('Auth method  ')}  ${created.record.tokenEndpointAuthMethod}`,
      ...(created.record.jwksUri === undefined ? [] : [`${dim('Key set      ')}  ${created.record.jwksUri}`]),
      ...(created.record.jwks === undefined
        ? []
        : [`${dim('Key set      ')}  ${created.record.jwks.keys.length} key(s) stored with the client`]),
      ...(created.record.scope === undefined ? [] : [`${dim('Scope        ')}  ${created.record.scope}`]),
    ];
    context.io.stdout(`${lines.join('\n')}\n`);
    return EXIT.ok;
  });
}

/**
 * The key set of a private_key_jwt client: which of the two flags is given is checked here (so the
 * message names the flags); the URL and the keys themselves are checked by the client administration,
 * as for registration.
 */
async function clientKeys(
  authMethod: string,
  jwksUri: string | undefined,
  jwksFile: string | undefined,
  context: CommandContext,
): Promise<Pick<ClientProvisionInput, 'jwks' | 'jwksUri'> | ExitCode> {
  if (authMethod !== 'private_key_jwt') {
    if (jwksUri === undefined && jwksFile === undefined) return {};
    return usage(context, '--jwks-uri and --jwks go with --auth-method private_key_jwt only.', ADD_USAGE);
  }
  if ((jwksUri === undefined) === (jwksFile === undefined)) {
    return usage(
      context,
      '--auth-method private_key_jwt needs the client keys: give --jwks-uri or --jwks (exactly one).',
      ADD_USAGE,
    );
  }
  if (jwksUri !== undefined) return { jwksUri };
  const { readFile } = await import('node:fs/promises');
  const file = resolve(context.io.cwd, jwksFile ?? '');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    return usage(context, `could not read --jwks ${printable(file)} (${describeError(error)}).`, ADD_USAGE);
  }
  try {
    return { jwks: JSON.parse(text) as ClientJwks };
  } catch {
    return usage(context, `--jwks ${printable(file)} is not JSON.`, ADD_USAGE);
  }
}

async function list(args: readonly string[], context: CommandContext): Promise<ExitCode> {
  const parsed = parse(args, COMMON_OPTIONS, 0, LIST_USAGE, context);
  if (typeof parsed === 'number') return parsed;
  return withAdministration(context, parsed.values, async (admin, tenant) => {
    const clients: ClientRecord[] = [];
    // Page through every client: the store hands out pages of at most 1000, ordered by id.
    for (;;) {
      const after = clients.at(-1)?.clientId;
      const page = await admin.list(tenant, {
        limit: 1000,
        ...(after === undefined ? {} : { afterClientId: after }),
      });
      clients.push(...page);
      if (page.length < 1000) break;
    }
    return printListing(context, {
      json: () => ({ clients: clients.map((client) => describe(client, context.now)) }),
      count: clients.length,
      empty: `No clients in tenant "${tenant}".`,
      table: () => [
        ['CLIENT ID', 'NAME', 'REGISTRATION', 'GRANTS', 'EXPIRES'],
        ...clients.map((client) => [
          client.clientId,
          client.clientName === undefined ? '-' : printable(client.clientName),
          client.registration ?? 'dynamic',
          client.grantTypes.join(' '),
          client.expiresAt === undefined ? 'never' : new Date(client.expiresAt).toISOString(),
        ]),
      ],
    });
  });
}

function remove(args: readonly string[], context: CommandContext): Promise<ExitCode> {
  return withNamedClient(args, context, REMOVE_USAGE, 'remove', async (admin, tenant, clientId) => {
    if (!(await admin.remove(tenant, clientId))) {
      return fail(
        context,
        EXIT.failure,
        'unknown_client',
        `No client ${printable(clientId)} in tenant "${tenant}".`,
      );
    }
    if (context.json) print(context, { removed: true, clientId });
    else context.io.stdout(`Removed client ${clientId}.\n`);
    return EXIT.ok;
  });
}

function block(args: readonly string[], context: CommandContext): Promise<ExitCode> {
  return withNamedClient(args, context, BLOCK_USAGE, 'block', async (admin, tenant, clientId) => {
    const { revokedGrants } = await admin.block(tenant, clientId);
    if (context.json) print(context, { blocked: true, clientId, revokedGrants });
    else {
      context.io.stdout(
        `Blocked client ${printable(clientId)}; revoked ${revokedGrants} grant${revokedGrants === 1 ? '' : 's'}.\n`,
      );
    }
    return EXIT.ok;
  });
}

function unblock(args: readonly string[], context: CommandContext): Promise<ExitCode> {
  return withNamedClient(args, context, UNBLOCK_USAGE, 'unblock', async (admin, tenant, clientId) => {
    if (!(await admin.unblock(tenant, clientId))) {
      return fail(
        context,
        EXIT.failure,
        'not_blocked',
        `Client ${printable(clientId)} is not blocked in tenant "${tenant}".`,
      );
    }
    if (context.json) print(context, { unblocked: true, clientId });
    else context.io.stdout(`Unblocked client ${printable(clientId)}.\n`);
    return EXIT.ok;
  });
}

function describe(client: ClientRecord, now: number): Record<string, unknown> {
  return {
    clientId: client.clientId,
    ...(client.clientName === undefined ? {} : { clientName: client.clientName }),
    registration: client.registration ?? 'dynamic',
    grantTypes: client.grantTypes,
    tokenEndpointAuthMethod: client.tokenEndpointAuthMethod,
    ...(client.scope === undefined ? {} : { scope: client.scope }),
    redirectUris: client.redirectUris,
    ...(client.tokenExchangeAudiences === undefined
      ? {}
      : { tokenExchangeAudiences: client.tokenExchangeAudiences }),
    ...(client.jwksUri === undefined ? {} : { jwksUri: client.jwksUri }),
    ...(client.jwks === undefined ? {} : { jwks: client.jwks }),
    createdAt: new Date(client.createdAt).toISOString(),
    ...(client.expiresAt === undefined
      ? {}
      : {
          expiresAt: new Date(client.expiresAt).toISOString(),
          expiresInSeconds: Math.max(0, Math.round((client.expiresAt - now) / 1000)),
        }),
  };
}
