// What the command tests share: the CLI run as a real child process from its build output, and a host on
// a fresh data directory whose keyhold.db an authorization server in the test process writes to, as the
// example host and the command share it.
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type AuthorizationServer,
  createAuthorizationServer,
  generateSigningKey,
  type TenantConfig,
} from '@keyhold/oauth-core';
import { createSqliteStores, openSqliteDatabase, type SqliteDatabase } from '@keyhold/store-sqlite';

const BIN = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));
export const BASE_URL = 'https://as.example';
/** The host's one first-party public client. */
export const CLIENT_ID = 'desktop-app';
export const REDIRECT_URI = 'http://127.0.0.1:7777/callback';
/** The single-user tenant's user. */
export const USER = 'owner';

/** One run of the command: its exit code and what it printed. */
export interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Fails the file early when the CLI was not built (`beforeAll(requireBuiltCli)`). */
export function requireBuiltCli(): void {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run "pnpm --filter @keyhold/cli... build" first`);
}

/** Runs `keyhold <args>` in `cwd`, its data directory `cwd/.keyhold`, with nothing else from the environment. */
export function keyhold(args: readonly string[], cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd, env: { PATH: process.env.PATH ?? '', KEYHOLD_DATA_DIR: join(cwd, '.keyhold') } },
      (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr });
      },
    );
  });
}

/** A fresh working directory (named after `label`) with an empty `.keyhold` data directory. */
export function freshDataDir(label: string): string {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), `keyhold-${label}-`)));
  mkdirSync(join(cwd, '.keyhold'));
  return cwd;
}

/** The host's database in `cwd`'s data directory, created when missing. */
export function openHostDatabase(cwd: string): SqliteDatabase {
  return openSqliteDatabase(join(cwd, '.keyhold', 'keyhold.db'));
}

/** A host the command tests run the CLI against. */
export interface CliHost {
  /** The working directory the CLI runs in; its data directory is `.keyhold` below it. */
  readonly cwd: string;
  /** The host's database: close it at the end of the test. */
  readonly db: SqliteDatabase;
  readonly server: AuthorizationServer;
  /** Starts a code flow for the client: the PKCE verifier and the authorize response. */
  authorize(): { readonly verifier: string; readonly response: Promise<Response> };
  /** A full code flow: the access token. */
  signIn(): Promise<string>;
  /** Whether the server accepts `accessToken` now. */
  accepted(accessToken: string): Promise<boolean>;
}

/**
 * A host on a fresh data directory: a server over its keyhold.db with a single-user tenant and one
 * first-party public client, so a code flow needs no login or consent screen.
 */
export async function host(label: string): Promise<CliHost> {
  const cwd = freshDataDir(label);
  const db = openHostDatabase(cwd);
  const tenant: TenantConfig = {
    signingKeys: [await generateSigningKey('ES256', 'as-1')],
    singleUserId: USER,
    firstPartyClientIds: [CLIENT_ID],
  };
  const server = createAuthorizationServer({
    baseUrl: BASE_URL,
    tenants: { get: (slug) => (slug === 'demo' ? tenant : undefined) },
    storage: createSqliteStores(db).oauth,
    singleUserMode: true,
    metrics: false,
  });
  await server.clients.provision('demo', {
    clientId: CLIENT_ID,
    clientName: 'Desktop App',
    grantTypes: ['authorization_code', 'refresh_token'],
    redirectUris: [REDIRECT_URI],
    tokenEndpointAuthMethod: 'none',
  });
  const authorize = () => {
    const verifier = randomBytes(32).toString('base64url');
    const url = new URL(`${BASE_URL}/tenant/demo/authorize`);
    url.search = new URLSearchParams({
      client_id: CLIENT_ID,
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      state: 's',
    }).toString();
    return { verifier, response: server.fetch(new Request(url)) };
  };
  const signIn = async (): Promise<string> => {
    const { verifier, response } = authorize();
    const code = new URL(String((await response).headers.get('location'))).searchParams.get('code');
    const token = await server.fetch(
      new Request(`${BASE_URL}/tenant/demo/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: String(code),
          code_verifier: verifier,
          redirect_uri: REDIRECT_URI,
          client_id: CLIENT_ID,
        }),
      }),
    );
    return String(((await token.json()) as { access_token: string }).access_token);
  };
  const accepted = async (accessToken: string) =>
    (await server.verifyAccessToken('demo', `Bearer ${accessToken}`)).ok;
  return { cwd, db, server, authorize, signIn, accepted };
}

/** Runs `use` with a fresh {@link host} (named after `label`), closing its database however `use` ends. */
export async function withHost<T>(label: string, use: (h: CliHost) => Promise<T>): Promise<T> {
  const h = await host(label);
  try {
    return await use(h);
  } finally {
    h.db.close();
  }
}
