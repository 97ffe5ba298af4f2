import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Balancer, freePort, startBalancer } from './balancer.js';
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

const available = await servicesAvailable();
const schema = `keyhold_hosts_${randomBytes(5).toString('hex')}`;
let a: HostProcess;
let b: HostProcess;
let db: pg.Client;
let ports: { a: number; b: number };
let balancer: RoundRobin;

/**
 * A load balancer without sticky sessions: each request goes to the next instance in turn; `served` counts
 * the requests each one got.
 */
interface RoundRobin extends Balancer {
  readonly served: number[];
}

async function startRoundRobin(port: number, backends: () => number[]): Promise<RoundRobin> {
  const served = [0, 0];
  let next = 0;
  const balancer = await startBalancer(port, () => {
    const index = next++ % 2;
    served[index]! += 1;
    return backends()[index]!;
  });
  return { ...balancer, served };
}

beforeAll(async () => {
  if (!available) return;
  db = new pg.Client({ connectionString: POSTGRES_URL });
  await db.connect();
  await db.query(`CREATE SCHEMA ${schema}`);
  await db.query(`SET search_path = ${schema}`);
  const [portA, portB, portBalancer] = [await freePort(), await freePort(), await freePort()];
  ports = { a: portA, b: portB };
  balancer = await startRoundRobin(portBalancer, () => [portA, portB]);
  const dataDir = mkdtempSync(join(tmpdir(), 'keyhold-multi-'));
  const shared = {
    // Clients know one URL, the balancer's; each instance answers it (and its own loopback port).
    KEYHOLD_PUBLIC_URL: balancer.url,
    DATABASE_URL: `${POSTGRES_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    REDIS_URL,
    KEYHOLD_REDIS_PREFIX: `${schema}:`,
    // Shorter than the broker's 5-minute refresh buffer, so every ask of the third-party token refreshes.
    KEYHOLD_ACCESS_TOKEN_TTL_SECONDS: '120',
    // Info lines include the authorization server's refresh reuse-window notices, which a test reads.
    LOG_LEVEL: 'info',
  };
  a = await startHost({ ...shared, PORT: String(portA) }, dataDir);
  b = await startHost({ ...shared, PORT: String(portB) }, dataDir);
});
afterAll(async () => {
  await balancer?.close();
  await b?.stop();
  await a?.stop({ removeData: true });
  if (db) {
    await db.query(`DROP SCHEMA ${schema} CASCADE`);
    await db.end();
  }
});

/** The base URL of each process itself, bypassing the balancer (its loopback port). */
const direct = (host: HostProcess): string => `http://127.0.0.1:${host === a ? ports.a : ports.b}`;
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

  it('answers 50 concurrent refreshes of one refresh token, split across both, with one and the same successor (reuse window)', async () => {
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        fetch(`${direct(i % 2 ? a : b)}/tenant/demo/token`, {
          method: 'POST',
          headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
          body: form({ grant_type: 'refresh_token', refresh_token: refreshToken }),
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as { refresh_token?: string } })),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
    const successors = new Set(answers.map((answer) => answer.body.refresh_token));
    expect(successors.size).toBe(1);
    const successor = String([...successors][0]);
    // Exactly one successor row exists: the family holds the first token, the one rotated here, and it.
    const hash = (token: string) => createHash('sha256').update(token).digest('base64url');
    const family = await db.query(
      `SELECT token_hash, consumed_at FROM keyhold_oauth_refresh_tokens
       WHERE family_id = (SELECT family_id FROM keyhold_oauth_refresh_tokens WHERE token_hash = $1)`,
      [hash(refreshToken)],
    );
    expect(family.rows).toHaveLength(3);
    expect(family.rows.filter((row) => row.consumed_at === null).map((row) => row.token_hash)).toEqual([
      hash(successor),
    ]);

    // Once the successor is used (at one instance), the old token presented again (at the other) is a
    // replay: the family is revoked everywhere.
    const next = await fetch(`${direct(a)}/tenant/demo/token`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: form({ grant_type: 'refresh_token', refresh_token: successor }),
    });
    expect(next.status).toBe(200);
    const newest = ((await next.json()) as { refresh_token: string }).refresh_token;
    const replay = await fetch(`${direct(b)}/tenant/demo/token`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: form({ grant_type: 'refresh_token', refresh_token: refreshToken }),
    });
    expect(replay.status).toBe(400);
    const revoked = await fetch(`${direct(a)}/tenant/demo/token`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: form({ grant_type: 'refresh_token', refresh_token: newest }),
    });
    expect(revoked.status).toBe(400);
    // Each instance that answered a repeat logged it (ids only), as the third-party test below relies on.
    const reuseLines = (host: HostProcess) =>
      host
        .output()
        .split('\n')
        .filter((line) => line.includes('within the reuse window') && line.includes('"tenant":"demo"'));
    expect(reuseLines(a).length + reuseLines(b).length).toBeGreaterThan(0);
  });

  it('refreshes an expiring third-party grant without a replay for 50 concurrent asks across both instances', async () => {
    const provider = new TestOAuthProvider('http://127.0.0.1:1/callback');
    // MCP through the balancer: each request lands on the next instance, whichever opened the "session".
    const mcpUrl = new URL(`${balancer.url}/tenant/demo/mcp`);
    await authorizeMcpClient(mcpUrl, provider);
    const clients = await Promise.all(
      [a, b].map(async () => {
        const client = new Client(
          { name: 'multi', version: '1' },
          { capabilities: { elicitation: { url: {} } } },
        );
        await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
        return client;
      }),
    );
    // Connect the provider once.
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
    // No refresh token was ever presented twice: the provider revoked no family. Every token here is inside
    // the refresh buffer the moment it is issued, so an instance whose asks arrive after the other's refresh
    // finished refreshes once more (with the new refresh token); within one instance the asks share one.
    const revokedAtProvider = await db.query(
      "SELECT count(*) AS n FROM keyhold_oauth_refresh_tokens WHERE tenant = 'provider' AND revoked_at IS NOT NULL",
    );
    expect(Number(revokedAtProvider.rows[0].n)).toBe(0);
    // Nor was a used token presented inside the provider's reuse window (which would hide a replay from
    // the count above): neither instance logged a reuse for the provider tenant.
    const reuses = `${a.output()}\n${b.output()}`
      .split('\n')
      .filter((line) => line.includes('within the reuse window') && line.includes('"tenant":"provider"'));
    expect(reuses).toEqual([]);
    // How many refreshes happen depends on timing (an ask arriving after a refresh finished refreshes again,
    // with the new token); what must hold is that there was one and that none replayed a token.
    expect(await refreshesAtProvider()).toBeGreaterThanOrEqual(1);
    await Promise.all(clients.map((client) => client.close()));
  });
});

describe.skipIf(!available)('two host processes serve one MCP client without sticky sessions', () => {
  it('serves a 2026-07-28 client (SDK v2) and a 2025-11-25 client (SDK v1) request by request across both', async () => {
    const provider = new TestOAuthProvider('http://127.0.0.1:1/callback');
    const mcpUrl = new URL(`${balancer.url}/tenant/demo/mcp`);
    await authorizeMcpClient(mcpUrl, provider);
    const before = [...balancer.served];

    // The 2026-07-28 era: the brokered tool's InputRequiredResult is minted by one instance and its retry,
    // carrying the sealed requestState, is verified and spent by the other.
    const modern = new ModernClient(
      { name: 'multi-modern', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { url: {} } } },
    );
    const opened: string[] = [];
    modern.setRequestHandler('elicitation/create', async (request) => {
      const url = (request.params as { url?: string }).url ?? '';
      opened.push(url);
      return { action: 'accept' };
    });
    await modern.connect(new ModernTransport(mcpUrl, { authProvider: provider as never }));
    expect((await modern.listTools()).tools.map((tool) => tool.name)).toContain('who_am_i');
    const added = await modern.callTool({ name: 'add_note', arguments: { text: 'across instances' } });
    expect((added.content as { text: string }[])[0]!.text).toMatch(/^Saved\./);

    // The 2025 era: initialize on one instance; its signed capability id is honoured by the other.
    const legacy = new Client(
      { name: 'multi-legacy', version: '1' },
      { capabilities: { elicitation: { url: {} } } },
    );
    await legacy.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    for (let i = 0; i < 4; i += 1) {
      expect((await legacy.listTools()).tools.length).toBe(4);
    }
    const after = balancer.served.map((count, i) => count - before[i]!);
    expect(after[0]).toBeGreaterThan(2);
    expect(after[1]).toBeGreaterThan(2);
    await modern.close();
    await legacy.close();
  });
});
