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
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'keyhold-grants-')));
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

describe('keyhold grants list: each grant with its id, client id, scopes and times', () => {
  it('lists a grant a code flow created, filtered by user and by client, as JSON and as a table', async () => {
    const h = await host();
    try {
      await h.signIn();
      const [grant] = await h.server.grants.list('demo');
      const listed = await keyhold(['grants', 'list', '--json'], h.cwd);
      expect(listed.code, listed.stderr).toBe(0);
      expect(JSON.parse(listed.stdout)).toEqual({
        grants: [
          {
            grantId: grant?.grantId,
            clientId: CLIENT_ID,
            userId: USER,
            kind: 'authorization_code',
            scopes: ['mcp:tools'],
            resources: [],
            offlineAccess: true,
            createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
            lastUsedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          },
        ],
      });
      const byUser = await keyhold(['grants', 'list', '--user', USER, '--json'], h.cwd);
      expect(JSON.parse(byUser.stdout).grants).toHaveLength(1);
      const byOther = await keyhold(['grants', 'list', '--client', 'someone-else', '--json'], h.cwd);
      expect(JSON.parse(byOther.stdout)).toEqual({ grants: [] });
      const table = await keyhold(['grants', 'list'], h.cwd);
      expect(table.code).toBe(0);
      expect(table.stdout).toContain('GRANT ID');
      expect(table.stdout).toContain(String(grant?.grantId));
      expect(table.stdout).toContain('mcp:tools');
    } finally {
      h.db.close();
    }
  });
});

describe('keyhold grants revoke: the grant ends and its tokens are refused at the next request', () => {
  it('revokes the grant the server issued a token under; the token is refused, the list shows it with --all', async () => {
    const h = await host();
    try {
      const accessToken = await h.signIn();
      expect(await h.accepted(accessToken)).toBe(true);
      const [grant] = await h.server.grants.list('demo');
      const revoked = await keyhold(['grants', 'revoke', String(grant?.grantId)], h.cwd);
      expect(revoked.code, revoked.stderr).toBe(0);
      expect(revoked.stdout).toContain(`Revoked grant ${grant?.grantId}`);
      expect(await h.accepted(accessToken)).toBe(false);
      expect(JSON.parse((await keyhold(['grants', 'list', '--json'], h.cwd)).stdout)).toEqual({ grants: [] });
      const all = JSON.parse((await keyhold(['grants', 'list', '--all', '--json'], h.cwd)).stdout);
      expect(all.grants[0]).toMatchObject({ grantId: grant?.grantId, revokedReason: 'admin' });
    } finally {
      h.db.close();
    }
  });

  it('an unknown grant id fails with exit 1 and says so', async () => {
    const h = await host();
    try {
      const run = await keyhold(['grants', 'revoke', 'no-such-grant', '--json'], h.cwd);
      expect(run.code).toBe(1);
      expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'unknown_grant' } });
    } finally {
      h.db.close();
    }
  });

  it('without a grant id it is a usage error (exit 2)', async () => {
    const h = await host();
    try {
      const run = await keyhold(['grants', 'revoke'], h.cwd);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('Missing the grant id to revoke');
    } finally {
      h.db.close();
    }
  });
});

describe('keyhold clients block|unblock: a blocked client is refused, its tokens too', () => {
  it('block revokes the grants (printing the count) and authorize names the client as blocked; unblock lifts it', async () => {
    const h = await host();
    try {
      const accessToken = await h.signIn();
      const blocked = await keyhold(['clients', 'block', CLIENT_ID, '--json'], h.cwd);
      expect(blocked.code, blocked.stderr).toBe(0);
      expect(JSON.parse(blocked.stdout)).toEqual({ blocked: true, clientId: CLIENT_ID, revokedGrants: 1 });
      expect(await h.accepted(accessToken)).toBe(false);
      const page = await h.authorize().response;
      expect(page.status).toBe(403);
      expect(page.headers.get('location')).toBeNull();
      expect(await page.text()).toContain(`&quot;${CLIENT_ID}&quot; is blocked`);

      const unblocked = await keyhold(['clients', 'unblock', CLIENT_ID], h.cwd);
      expect(unblocked.code, unblocked.stderr).toBe(0);
      expect(unblocked.stdout).toContain(`Unblocked client ${CLIENT_ID}`);
      expect(await h.accepted(await h.signIn())).toBe(true);
      const again = await keyhold(['clients', 'unblock', CLIENT_ID], h.cwd);
      expect(again.code).toBe(1);
    } finally {
      h.db.close();
    }
  });

  it('blocks a metadata-document client id the host has never seen', async () => {
    const h = await host();
    try {
      const run = await keyhold(['clients', 'block', 'https://app.example/client.json'], h.cwd);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('Blocked client https://app.example/client.json; revoked 0 grants.');
    } finally {
      h.db.close();
    }
  });
});
