import { join } from 'node:path';
import type { AuthorizationServer, OAuthStorage, TenantConfig } from '@keyhold/oauth-core';
import { EXIT, type ExitCode } from '../io.js';
import { type CommandContext, DATA_DIR_ENV, dataDirFrom, fail } from './command-context.js';

/** The environment variable naming the host's PostgreSQL database, shared with the host. */
export const DATABASE_URL_ENV = 'DATABASE_URL';
/** The tenant the commands act on by default: the example host's. */
export const DEFAULT_TENANT = 'demo';

/** The options every command over the host's store takes, for their usage texts. */
export const HOST_STORE_OPTIONS_HELP: string = `  --tenant <slug>     the tenant (default: ${DEFAULT_TENANT}, the example host's)
  --data-dir <dir>    the host's data directory holding keyhold.db (default: $${DATA_DIR_ENV}, else ./.keyhold);
                      with $${DATABASE_URL_ENV} set, the host's PostgreSQL database is used instead
  --json              print JSON for scripts
  -h, --help          show this help
`;

/** The parse options matching {@link HOST_STORE_OPTIONS_HELP}. */
export const HOST_STORE_OPTIONS: {
  readonly tenant: { readonly type: 'string' };
  readonly 'data-dir': { readonly type: 'string' };
  readonly json: { readonly type: 'boolean' };
  readonly help: { readonly type: 'boolean'; readonly short: 'h' };
} = {
  tenant: { type: 'string' },
  'data-dir': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

/** What the commands use of an authorization server over the host's store: its administration APIs. */
export type HostAdministration = Pick<AuthorizationServer, 'clients' | 'grants' | 'listEvents'>;

/**
 * Opens the host's store, runs `body` with the server's administration APIs, closes the store. An unreachable
 * store is exit 1 (its error is never echoed: a database URL may carry a password); an `OAuthError` (bad input)
 * is exit 2 with its code.
 */
export async function withHostServer(
  context: CommandContext,
  values: { readonly tenant?: string | undefined; readonly 'data-dir'?: string | undefined },
  body: (server: HostAdministration, tenant: string) => Promise<ExitCode>,
): Promise<ExitCode> {
  const tenant = values.tenant ?? DEFAULT_TENANT;
  const { OAuthError } = await import('@keyhold/oauth-core');
  let opened: { readonly server: HostAdministration; close(): Promise<void> };
  try {
    opened = await openHostServer(context, values['data-dir']);
  } catch (error) {
    return fail(
      context,
      EXIT.failure,
      'store_unavailable',
      `could not open the host's store (${describeError(error)})`,
    );
  }
  try {
    return await body(opened.server, tenant);
  } catch (error) {
    if (error instanceof OAuthError) {
      return fail(context, EXIT.usage, error.code, error.message);
    }
    throw error;
  } finally {
    await opened.close();
  }
}

/** A short, secret-free description of an error: its code, else its class name. */
export function describeError(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.name : 'unknown error';
}

/**
 * An authorization server over the host's store, built for its administration APIs only (it serves nothing
 * here): `server.clients`, `server.grants` and `server.listEvents`, the ones a host has. The CLI does not know the host's tenant
 * configuration (its keys and scopes live in the host), so every well-formed slug is taken as a tenant offering
 * any scope and authentication method: the store and the client metadata rules still apply.
 */
async function serverOver(storage: OAuthStorage): Promise<HostAdministration> {
  const { createAuthorizationServer } = await import('@keyhold/oauth-core');
  const anyTenant: TenantConfig = { signingKeys: [] };
  const server = createAuthorizationServer({
    baseUrl: 'http://127.0.0.1',
    tenants: { get: () => anyTenant },
    storage,
    metrics: false,
  });
  return { clients: server.clients, grants: server.grants, listEvents: server.listEvents };
}

/** The stores load only for these commands, so `keyhold claim` never opens a database driver. */
async function openHostServer(
  context: CommandContext,
  dataDirFlag: string | undefined,
): Promise<{ readonly server: HostAdministration; close(): Promise<void> }> {
  const databaseUrl = context.io.env[DATABASE_URL_ENV];
  if (databaseUrl !== undefined && databaseUrl !== '') {
    const { createPostgresStores } = await import('@keyhold/store-postgres');
    // A failed start ends the pool it opened from the URL.
    const stores = await createPostgresStores(databaseUrl);
    return { server: await serverOver(stores.oauth), close: () => stores.close() };
  }
  const { createSqliteStores, openSqliteDatabase } = await import('@keyhold/store-sqlite');
  const { existsSync } = await import('node:fs');
  const file = join(dataDirFrom(dataDirFlag, context.io), 'keyhold.db');
  // Never create an empty database where the user mistyped the data directory.
  if (!existsSync(file))
    throw Object.assign(new Error('no database'), {
      code: `no keyhold.db in ${file.slice(0, -'/keyhold.db'.length)}`,
    });
  const db = openSqliteDatabase(file);
  return {
    server: await serverOver(createSqliteStores(db).oauth),
    close: async () => {
      db.close();
    },
  };
}
