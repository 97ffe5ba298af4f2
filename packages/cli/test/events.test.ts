import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAuthorizationServer, generateSigningKey, type TenantConfig } from '@keyhold/oauth-core';
import { createSqliteStores, openSqliteDatabase } from '@keyhold/store-sqlite';
import { beforeAll, describe, expect, it } from 'vitest';

// The CLI runs as a real child process from its build output, against a real SQLite file that an
// authorization server in this process writes to, as the example host and the command share keyhold.db.
const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const BASE_URL = 'https://as.example';
const CLIENT_ID = 'desktop-app';
const REDIRECT_URI = 'http://127.0.0.1:7777/callback';
const USER = 'owner';

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function keyhold(args: readonly string[], cwd: string): Promise<Run> {
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

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run "pnpm --filter @keyhold/cli... build" first`);
});

/**
 * A host on a fresh data directory: a server over its keyhold.db with a single-user tenant and one
 * first-party public client, so a code flow needs no login or consent screen.
 */
async function host() {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'keyhold-events-')));
  mkdirSync(join(cwd, '.keyhold'));
  const db = openSqliteDatabase(join(cwd, '.keyhold', 'keyhold.db'));
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
  /** A full code flow: the access token. */
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

/** Lets the timeline appends the server started without waiting settle. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('keyhold events: the decision timeline of a client or a user, each event with its reason', () => {
  it('lists a client’s and a user’s events as JSON and as a table, newest first, never a token', async () => {
    const h = await host();
    try {
      const accessToken = await h.signIn();
      await h.server.verifyAccessToken('demo', 'Bearer not-a-real-token');
      const [grant] = await h.server.grants.list('demo');
      await h.server.grants.revoke('demo', String(grant?.grantId));
      expect(await h.accepted(accessToken)).toBe(false);
      await settled();

      const byClient = await keyhold(['events', '--client', CLIENT_ID, '--json'], h.cwd);
      expect(byClient.code, byClient.stderr).toBe(0);
      const events = JSON.parse(byClient.stdout).events as Record<string, unknown>[];
      expect(events.map((event) => event.reason)).toEqual([
        'token.rejected.grant_revoked',
        'grant.revoked.admin',
        'token.issued',
        'grant.created',
        'authorize.approved',
      ]);
      expect(events[0]).toMatchObject({
        category: 'resource',
        status: 401,
        clientId: CLIENT_ID,
        userId: USER,
        grantId: grant?.grantId,
        at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
      expect(byClient.stdout).not.toContain(accessToken);

      const byUser = await keyhold(['events', '--user', USER, '--since', '1h', '--json'], h.cwd);
      expect(JSON.parse(byUser.stdout).events).toHaveLength(5);
      const other = await keyhold(['events', '--client', 'someone-else', '--json'], h.cwd);
      expect(JSON.parse(other.stdout)).toEqual({ events: [] });

      const table = await keyhold(['events', '--client', CLIENT_ID], h.cwd);
      expect(table.code).toBe(0);
      expect(table.stdout).toContain('REASON');
      expect(table.stdout).toContain('token.rejected.grant_revoked');
      expect(table.stdout).toContain(String(grant?.grantId));
    } finally {
      h.db.close();
    }
  });

  it('refuses a call without --client or --user, and a malformed --since, with exit 2', async () => {
    const h = await host();
    try {
      const bare = await keyhold(['events'], h.cwd);
      expect(bare.code).toBe(2);
      expect(bare.stderr).toContain('--client');
      const since = await keyhold(['events', '--user', USER, '--since', 'yesterday'], h.cwd);
      expect(since.code).toBe(2);
      expect(since.stderr).toContain('not a duration');
    } finally {
      h.db.close();
    }
  });
});
