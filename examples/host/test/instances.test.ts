import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Balancer, freePort, startBalancer } from './balancer.js';
import { keyhold } from './cli.js';
import { type HostProcess, hostDir, startHost } from './host-process.js';
import { postInitialize } from './mcp-initialize.js';
import { approveInBrowser, authorizeMcpClient, TestOAuthProvider } from './oauth-client.js';

// Several instances of the host on one store, started at the same moment, as an operator does behind a
// load balancer: they must agree on signing keys and secrets, create the provider client once, and serve
// the same claim codes and tool records. The PostgreSQL cases need a database (KEYHOLD_TEST_POSTGRES_URL);
// under CI=true a missing one fails the run, elsewhere those cases are skipped with the reason printed.
const POSTGRES_URL = process.env['KEYHOLD_TEST_POSTGRES_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
// Starting at once is a race: each case repeats the paired start on fresh storage.
const ROUNDS = 5;

async function postgresAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch (error) {
    const reason = (error as Error).message;
    if (process.env['CI'] === 'true') throw new Error(`the instances test needs PostgreSQL: ${reason}`);
    console.warn(`SKIPPED PostgreSQL instance tests: ${reason}`);
    return false;
  }
}

/** The public URL clients know: a balancer that sends every request to the instance chosen last. */
interface SwitchingBalancer extends Balancer {
  to(port: number): void;
}

async function startSwitchingBalancer(): Promise<SwitchingBalancer> {
  let backend = 0;
  const balancer = await startBalancer(0, () => backend);
  return {
    ...balancer,
    to: (next) => {
      backend = next;
    },
  };
}

interface Pair {
  readonly a: HostProcess;
  readonly b: HostProcess;
  readonly ports: { readonly a: number; readonly b: number };
  readonly balancer: SwitchingBalancer;
  stop(): Promise<void>;
}

const dirs: string[] = [];
const temp = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'keyhold-instances-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Starts two instances at the same moment, each on its own data directory unless `dataDir` is shared. */
async function startPair(
  env: Record<string, string>,
  dataDirs: { a: string; b: string },
  own: { a?: Record<string, string>; b?: Record<string, string> } = {},
  attempt = 1,
): Promise<Pair> {
  const balancer = await startSwitchingBalancer();
  const ports = { a: await freePort(), b: await freePort() };
  const shared = { KEYHOLD_PUBLIC_URL: balancer.url, ...env };
  const started = await Promise.allSettled([
    startHost({ ...shared, ...own.a, PORT: String(ports.a) }, dataDirs.a),
    startHost({ ...shared, ...own.b, PORT: String(ports.b) }, dataDirs.b),
  ]);
  const [a, b] = started.map((result) => (result.status === 'fulfilled' ? result.value : undefined));
  const stop = async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await balancer.close();
  };
  if (!a || !b) {
    await stop();
    const failure = started.find((result) => result.status === 'rejected') as PromiseRejectedResult;
    // freePort() hands out a port that another test may take before the host binds it: pick new ones.
    if (attempt < 3 && String(failure.reason).includes('EADDRINUSE')) {
      return startPair(env, dataDirs, own, attempt + 1);
    }
    throw failure.reason;
  }
  return { a, b, ports, balancer, stop };
}

const form = (params: Record<string, string>) => new URLSearchParams(params).toString();

async function jwks(port: number): Promise<unknown> {
  const response = await fetch(`http://127.0.0.1:${port}/tenant/demo/.well-known/jwks.json`);
  expect(response.status).toBe(200);
  return response.json();
}

/** A token issued by the instance the balancer points at (a registered client, the code flow). */
async function issueToken(pair: Pair, port: number): Promise<{ accessToken: string; basic: string }> {
  pair.balancer.to(port);
  const base = pair.balancer.url;
  const registered = await fetch(`${base}/tenant/demo/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'instances',
      redirect_uris: ['http://127.0.0.1:1/cb'],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    }),
  });
  expect(registered.status).toBe(201);
  const client = (await registered.json()) as { client_id: string; client_secret: string };
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`).toString('base64')}`;
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL(`${base}/tenant/demo/authorize`);
  authorize.search = form({
    client_id: client.client_id,
    response_type: 'code',
    redirect_uri: 'http://127.0.0.1:1/cb',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    scope: 'mcp:tools',
  });
  const { code } = await approveInBrowser(authorize);
  const issued = await fetch(`${base}/tenant/demo/token`, {
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
  return { accessToken: ((await issued.json()) as { access_token: string }).access_token, basic };
}

/** Whether the instance the balancer points at accepts the token (its signature, issuer and expiry). */
async function accepted(pair: Pair, port: number, token: { accessToken: string; basic: string }) {
  pair.balancer.to(port);
  const introspected = await fetch(`${pair.balancer.url}/tenant/demo/introspect`, {
    method: 'POST',
    headers: { authorization: token.basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: form({ token: token.accessToken }),
  });
  expect(introspected.status).toBe(200);
  return ((await introspected.json()) as { active: boolean }).active;
}

/**
 * Whether the instance the balancer points at lets the token through to its MCP endpoint: a check of the
 * signature, issuer, audience and expiry alone, for instances that share no client records.
 */
async function acceptedByMcp(pair: Pair, port: number, token: { accessToken: string }) {
  pair.balancer.to(port);
  const response = await postInitialize(`${pair.balancer.url}/tenant/demo/mcp`, token.accessToken, {
    protocolVersion: '2025-11-25',
    clientInfo: { name: 'instances', version: '1' },
  });
  await response.body?.cancel();
  return response.status === 200;
}

/** Checks the pair agrees: one key set, and a token from A accepted by B (and one from B by A). */
async function expectOneKeySet(pair: Pair): Promise<void> {
  const [keysA, keysB] = [await jwks(pair.ports.a), await jwks(pair.ports.b)];
  expect((keysA as { keys: unknown[] }).keys.length).toBeGreaterThan(0);
  expect(keysB).toEqual(keysA);
  expect(await accepted(pair, pair.ports.b, await issueToken(pair, pair.ports.a))).toBe(true);
  expect(await accepted(pair, pair.ports.a, await issueToken(pair, pair.ports.b))).toBe(true);
}

/** An MCP client of the 2025-11-25 era, through the balancer, with the provider's tokens. */
async function mcpClient(pair: Pair, provider: TestOAuthProvider, headers: Record<string, string> = {}) {
  const client = new Client({ name: 'instances', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${pair.balancer.url}/tenant/demo/mcp`), {
      authProvider: provider,
      requestInit: { headers },
    }),
  );
  return client;
}

const textOf = (result: unknown): string => (result as { content: { text: string }[] }).content[0]!.text;

/** A note added through A is listed through B, and a note pushed by webhook to B is listed through A. */
async function expectSharedNotes(pair: Pair): Promise<void> {
  const provider = new TestOAuthProvider('http://127.0.0.1:1/callback');
  pair.balancer.to(pair.ports.a);
  await authorizeMcpClient(new URL(`${pair.balancer.url}/tenant/demo/mcp`), provider);
  const client = await mcpClient(pair, provider);
  const note = `written through A ${randomBytes(4).toString('hex')}`;
  expect(textOf(await client.callTool({ name: 'add_note', arguments: { text: note } }))).toMatch(/^Saved\./);
  // The same MCP session, its next request answered by the other instance.
  pair.balancer.to(pair.ports.b);
  const listed = JSON.parse(textOf(await client.callTool({ name: 'list_notes', arguments: {} }))) as {
    text: string;
  }[];
  expect(listed.map((entry) => entry.text)).toContain(note);
  await client.close();
}

describe('several instances started at once on one empty data directory (no DATABASE_URL)', () => {
  it(`agree on signing keys, secrets and the provider client, ${ROUNDS} paired starts in a row`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const dataDir = temp();
      const pair = await startPair({}, { a: dataDir, b: dataDir });
      try {
        await expectOneKeySet(pair);
        // Both instances read the same keyhold.db: notes written through one are listed through the other.
        if (round === 0) await expectSharedNotes(pair);
      } finally {
        await pair.stop();
      }
    }
  }, 120_000);
});

describe('keys and secrets from the environment', () => {
  it('signs with KEYHOLD_SIGNING_JWKS (or _FILE) and writes no key to the data directory', async () => {
    const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
    const keySet = JSON.stringify({ keys: [{ ...jwk, kid: 'from-env', alg: 'ES256' }] });
    const file = join(temp(), 'jwks.json');
    writeFileSync(file, keySet, { mode: 0o600 });
    // Two instances on different data directories (two machines without a shared filesystem) agree: one
    // given the key set inline, the other as a file.
    const pair = await startPair(
      { KEYHOLD_PROVIDER_CLIENT_SECRET: 'provider-secret-from-the-environment' },
      { a: temp(), b: temp() },
      { a: { KEYHOLD_SIGNING_JWKS: keySet }, b: { KEYHOLD_SIGNING_JWKS_FILE: file } },
    );
    try {
      const keys = (await jwks(pair.ports.a)) as { keys: { kid: string; x: string; d?: string }[] };
      expect(keys.keys.map((key) => key.kid)).toEqual(['from-env']);
      expect(keys.keys[0]!.x).toBe(jwk.x);
      expect(keys.keys[0]!.d).toBeUndefined();
      expect(await jwks(pair.ports.b)).toEqual(keys);
      // Their client records differ (a SQLite file each), so the check is the MCP endpoint's bearer check.
      expect(await acceptedByMcp(pair, pair.ports.b, await issueToken(pair, pair.ports.a))).toBe(true);
      expect(await acceptedByMcp(pair, pair.ports.a, await issueToken(pair, pair.ports.b))).toBe(true);
      expect(await acceptedByMcp(pair, pair.ports.a, { accessToken: 'not-a-token' })).toBe(false);
      for (const host of [pair.a, pair.b]) {
        expect(existsSync(join(host.dataDir, 'signing-keys.json'))).toBe(false);
      }
    } finally {
      await pair.stop();
    }
  }, 60_000);

  it('refuses to start on a KEYHOLD_SIGNING_JWKS holding a public key, naming the key', async () => {
    const { d: _private, ...publicJwk } = generateKeyPairSync('ec', {
      namedCurve: 'P-256',
    }).privateKey.export({
      format: 'jwk',
    });
    const starting = startHost(
      { KEYHOLD_SIGNING_JWKS: JSON.stringify({ keys: [{ ...publicJwk, kid: 'pub' }] }) },
      temp(),
    );
    starting.then(
      (host) => host.stop(),
      () => {},
    );
    await expect(starting).rejects.toThrow(/signing key pub: the JWK is a public key/);
  });

  it('refuses to start on a KEYHOLD_SIGNING_JWKS that is not a key set', async () => {
    const starting = startHost({ KEYHOLD_SIGNING_JWKS: '{"kty":"EC"}' }, temp());
    starting.then(
      (host) => host.stop(),
      () => {},
    );
    await expect(starting).rejects.toThrow(/KEYHOLD_SIGNING_JWKS holds no keys/);
  });
});

const postgres = await postgresAvailable();

describe.skipIf(!postgres)('several instances started at once on one empty PostgreSQL database', () => {
  let admin: pg.Client;
  const schemas: string[] = [];
  beforeAll(async () => {
    admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
  });
  afterAll(async () => {
    for (const schema of schemas) await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  });
  /** A fresh, empty schema and the DATABASE_URL that uses it. */
  async function emptyDatabase(): Promise<string> {
    const schema = `keyhold_instances_${randomBytes(5).toString('hex')}`;
    await admin.query(`CREATE SCHEMA ${schema}`);
    schemas.push(schema);
    return `${POSTGRES_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  }

  it(`both start, with one key set and one provider client, ${ROUNDS} times, on machines sharing no files`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const databaseUrl = await emptyDatabase();
      const pair = await startPair({ DATABASE_URL: databaseUrl }, { a: temp(), b: temp() });
      try {
        await expectOneKeySet(pair);
        if (round === 0) await expectSharedNotes(pair);
        // The vault key kept next to the grants it encrypts is worth a warning.
        expect(pair.a.output()).toContain('the vault master key is kept in the database');
        // Nothing shared went to the data directories: the database holds it.
        for (const host of [pair.a, pair.b]) {
          expect(existsSync(join(host.dataDir, 'signing-keys.json'))).toBe(false);
          expect(existsSync(join(host.dataDir, 'secrets.json'))).toBe(false);
        }
      } finally {
        await pair.stop();
      }
    }
  }, 150_000);

  it('honours at every instance a claim code `keyhold claim` created in the database, and its revocation', async () => {
    const databaseUrl = await emptyDatabase();
    const pair = await startPair({ DATABASE_URL: databaseUrl }, { a: temp(), b: temp() });
    try {
      const provider = new TestOAuthProvider('http://127.0.0.1:1/callback');
      pair.balancer.to(pair.ports.a);
      await authorizeMcpClient(new URL(`${pair.balancer.url}/tenant/demo/mcp`), provider);
      // The CLI runs on a third machine: it knows the database, not the instances' data directories.
      const cliDir = temp();
      const created = await keyhold(
        ['claim', '--scope', join(hostDir, 'tools/workspace-a'), '--json', '--data-dir', cliDir],
        { DATABASE_URL: databaseUrl },
      );
      expect(created.code).toBe(0);
      const { code } = JSON.parse(created.stdout) as { code: string };
      expect(existsSync(join(cliDir, 'claims.json'))).toBe(false);
      for (const port of [pair.ports.a, pair.ports.b]) {
        pair.balancer.to(port);
        const client = await mcpClient(pair, provider, { 'Mcp-Claim-Code': code });
        const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
        expect(names).toEqual(['add_note', 'list_notes']);
        await client.close();
      }
      const listed = await keyhold(['claim', 'list', '--json'], { DATABASE_URL: databaseUrl });
      expect(JSON.parse(listed.stdout).claims.map((claim: { code: string }) => claim.code)).toEqual([code]);
      const revoked = await keyhold(['claim', 'revoke', code], { DATABASE_URL: databaseUrl });
      expect(revoked.code).toBe(0);
      pair.balancer.to(pair.ports.b);
      // Revoked: the other instance no longer narrows the session (an invalid code is served unscoped).
      const widened = await mcpClient(pair, provider, { 'Mcp-Claim-Code': code });
      expect((await widened.listTools()).tools.map((tool) => tool.name).sort()).toEqual([
        'add_note',
        'list_notes',
        'recent_pushes',
        'who_am_i',
      ]);
      await widened.close();
    } finally {
      await pair.stop();
    }
  }, 60_000);

  it('keeps the vault key and signing keys of a data directory when the host moves to PostgreSQL', async () => {
    const dataDir = temp();
    const before = await startHost({}, dataDir);
    const keysBefore = await (await fetch(`${before.url}/tenant/demo/.well-known/jwks.json`)).json();
    await before.stop();
    const after = await startHost({ DATABASE_URL: await emptyDatabase() }, dataDir);
    try {
      expect(await (await fetch(`${after.url}/tenant/demo/.well-known/jwks.json`)).json()).toEqual(
        keysBefore,
      );
    } finally {
      await after.stop();
    }
  }, 60_000);
});
