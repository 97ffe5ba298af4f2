import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostProcess, startHost } from './host-process.js';
import { approveInBrowser, authorizeMcpClient, TestOAuthProvider } from './oauth-client.js';

// Two example-host processes behind one public URL (as behind a load balancer), sharing PostgreSQL (a
// schema of their own) and Redis. Under CI=true a missing database fails the run; elsewhere it is skipped
// with the reason printed.
const POSTGRES_URL = process.env['KEYHOLD_TEST_POSTGRES_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env['KEYHOLD_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

async function servicesAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.end();
    const url = new URL(REDIS_URL);
    const socket = await new Promise<boolean>((resolve) => {
      const probe = connect(Number(url.port || 6379), url.hostname, () => {
        probe.end();
        resolve(true);
      });
      probe.on('error', () => resolve(false));
    });
    if (!socket) throw new Error(`Redis at ${REDIS_URL} is not reachable`);
    return true;
  } catch (error) {
    const reason = (error as Error).message;
    if (process.env['CI'] === 'true')
      throw new Error(`multi-instance test needs PostgreSQL and Redis: ${reason}`);
    console.warn(`SKIPPED multi-instance host tests: ${reason}`);
    return false;
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const available = await servicesAvailable();
const schema = `keyhold_hosts_${randomBytes(5).toString('hex')}`;
let a: HostProcess;
let b: HostProcess;
let db: pg.Client;

beforeAll(async () => {
  if (!available) return;
  db = new pg.Client({ connectionString: POSTGRES_URL });
  await db.connect();
  await db.query(`CREATE SCHEMA ${schema}`);
  await db.query(`SET search_path = ${schema}`);
  const [portA, portB] = [await freePort(), await freePort()];
  const dataDir = mkdtempSync(join(tmpdir(), 'keyhold-multi-'));
  const shared = {
    KEYHOLD_PUBLIC_URL: `http://127.0.0.1:${portA}`,
    DATABASE_URL: `${POSTGRES_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    REDIS_URL,
    KEYHOLD_REDIS_PREFIX: `${schema}:`,
    // Shorter than the broker's 5-minute refresh buffer, so every ask of the third-party token refreshes.
    KEYHOLD_ACCESS_TOKEN_TTL_SECONDS: '120',
  };
  a = await startHost({ ...shared, PORT: String(portA) }, dataDir);
  b = await startHost({ ...shared, PORT: String(portB) }, dataDir);
});
afterAll(async () => {
  await b?.stop();
  await a?.stop({ removeData: true });
  if (db) {
    await db.query(`DROP SCHEMA ${schema} CASCADE`);
    await db.end();
  }
});

/** The base URL of each process itself (the public URL names A). */
const direct = (host: HostProcess): string =>
  host
    .output()
    .match(/listening on (http:\/\/\S+)/)![1]!
    .replace(/\/$/, '');
const form = (params: Record<string, string>) => new URLSearchParams(params).toString();

describe.skipIf(!available)('two host processes sharing PostgreSQL and Redis', () => {
  let clientId = '';
  let basic = '';
  let refreshToken = '';

  it('refreshes and introspects at one instance a token issued by the other', async () => {
    const registered = await fetch(`${direct(a)}/tenant/demo/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'multi',
        redirect_uris: ['http://127.0.0.1:1/cb'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      }),
    });
    expect(registered.status).toBe(201);
    const client = (await registered.json()) as { client_id: string; client_secret: string };
    clientId = client.client_id;
    basic = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(client.client_secret)}`).toString('base64')}`;
    const verifier = randomBytes(32).toString('base64url');
    const authorize = new URL(`${direct(a)}/tenant/demo/authorize`);
    authorize.search = form({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: 'http://127.0.0.1:1/cb',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      scope: 'mcp:tools',
      state: 'st',
    });
    const { code } = await approveInBrowser(authorize);
    const issued = await fetch(`${direct(a)}/tenant/demo/token`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: form({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: 'http://127.0.0.1:1/cb',
      }),
    });
    expect(issued.status).toBe(200);
    const first = (await issued.json()) as { refresh_token: string };

    const refreshed = await fetch(`${direct(b)}/tenant/demo/token`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: form({ grant_type: 'refresh_token', refresh_token: first.refresh_token }),
    });
    expect(refreshed.status).toBe(200);
    const second = (await refreshed.json()) as { access_token: string; refresh_token: string };
    refreshToken = second.refresh_token;
    const introspected = await fetch(`${direct(a)}/tenant/demo/introspect`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: form({ token: second.access_token }),
    });
    expect(await introspected.json()).toMatchObject({ active: true, client_id: clientId });
  });

  it('lets exactly one of 50 concurrent refreshes of one refresh token, split across both, succeed', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        fetch(`${direct(i % 2 ? a : b)}/tenant/demo/token`, {
          method: 'POST',
          headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
          body: form({ grant_type: 'refresh_token', refresh_token: refreshToken }),
        }).then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s !== 200).every((s) => s === 400)).toBe(true);
  });

  it('refreshes an expiring third-party grant exactly once for 50 concurrent asks across both instances', async () => {
    const provider = new TestOAuthProvider('http://127.0.0.1:1/callback');
    const mcpAt = (host: HostProcess) => new URL(`${direct(host)}/tenant/demo/mcp`);
    await authorizeMcpClient(mcpAt(a), provider);
    const clients = await Promise.all(
      [a, b].map(async (host) => {
        const client = new Client(
          { name: 'multi', version: '1' },
          { capabilities: { elicitation: { url: {} } } },
        );
        await client.connect(new StreamableHTTPClientTransport(mcpAt(host), { authProvider: provider }));
        return client;
      }),
    );
    // Connect the provider once, through instance A.
    const elicitation = (await clients[0]!.callTool({ name: 'who_am_i', arguments: {} }).catch((e) => e)) as {
      data: { elicitations: { url: string }[] };
    };
    const toProvider = await fetch(elicitation.data.elicitations[0]!.url, { redirect: 'manual' });
    const toCallback = await fetch(toProvider.headers.get('location')!, { redirect: 'manual' });
    expect((await fetch(toCallback.headers.get('location')!)).status).toBe(200);
    const refreshesAtProvider = async () =>
      Number(
        (
          await db.query(
            "SELECT count(*) AS n FROM keyhold_oauth_refresh_tokens WHERE tenant = 'provider' AND consumed_at IS NOT NULL",
          )
        ).rows[0].n,
      );
    expect(await refreshesAtProvider()).toBe(0);

    // Every ask finds the token within the refresh buffer. Without the cross-instance single flight, the
    // losers would present a refresh token already used: the provider would see a replay, revoke the
    // family, and those asks would elicit again instead of answering.
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => clients[i % 2]!.callTool({ name: 'who_am_i', arguments: {} })),
    );
    for (const result of results)
      expect((result.content as { text: string }[])[0]!.text).toContain('as owner');
    expect(await refreshesAtProvider()).toBe(1);
    await Promise.all(clients.map((client) => client.close()));
  });
});
