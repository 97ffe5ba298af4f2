import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomToken, sha256Base64url } from '@keyhold/internal';
import type { OAuthStorage } from '@keyhold/oauth-core';
import { createPostgresPool, createPostgresStores } from '@keyhold/store-postgres';
import { createSqliteStores, openSqliteDatabase } from '@keyhold/store-sqlite';
import { type Announcement, type Listening, type McpAnnouncement, READY } from './servers/common.js';

/** A server under test, running in a child process, with what it announced. */
export interface RunningTarget<A extends Listening = Announcement> {
  readonly announcement: A;
  stop(): Promise<void>;
}

const here = fileURLToPath(new URL('.', import.meta.url));
/** BENCH_PROFILE_DIR: every server child writes a V8 CPU profile there when it exits. */
const profileDir = process.env['BENCH_PROFILE_DIR'];
const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
/** The built example host, started as its README says. */
export const HOST_MAIN: string = join(here, '../../examples/host/dist/main.js');

async function waitFor<A extends Listening>(child: ChildProcess, match: (output: string) => A | undefined) {
  let output = '';
  return new Promise<A>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const found = match(output);
      if (found) resolve(found);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) =>
      reject(new Error(`server exited with ${code} before it listened:\n${output}`)),
    );
  });
}

function stopper(child: ChildProcess, after?: () => Promise<void> | void): () => Promise<void> {
  return async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await after?.();
  };
}

/**
 * Starts one of this package's server scripts (`servers/<name>.js`) with extra environment; `A` is what that
 * script announces (a token server's {@link Announcement} unless said otherwise).
 */
export async function startServer<A extends Listening = Announcement>(
  name: string,
  env: Record<string, string>,
): Promise<RunningTarget<A>> {
  const child = spawn(process.execPath, [...nodeArgs, join(here, 'servers', `${name}.js`)], {
    env: { ...process.env, NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const announcement = await waitFor(child, (output) => {
    const line = output.split('\n').find((candidate) => candidate.startsWith(READY));
    const complete = line !== undefined && output.indexOf('\n', output.indexOf(READY)) !== -1;
    return complete ? (JSON.parse(line.slice(READY.length)) as A) : undefined;
  });
  return { announcement, stop: stopper(child) };
}

/** Options of {@link startHost}. */
export interface HostTargetOptions {
  readonly alg: 'ES256' | 'HS256';
  /** Default SQLite (the host's default); `postgres` sets DATABASE_URL to a schema of its own. */
  readonly store?: 'sqlite' | 'postgres';
  readonly refreshSeeds?: number;
  readonly postgresUrl?: string;
  /** Another build of the host to start (a baseline checkout's `examples/host/dist/main.js`). */
  readonly main?: string;
  /**
   * `KEYHOLD_MACHINE_CLIENTS=1`, and `bench-client` may ask for `mcp:tools`: its client_credentials token is
   * then one the MCP endpoint serves (the MCP scenario's bearer).
   */
  readonly machineClients?: boolean;
}

/**
 * Starts the built example host (examples/host/dist/main.js) with rate limits off and `warn` logging, after
 * writing the tenant's signing key (ES256 or HS256) and a client_credentials client, plus refresh tokens of
 * a public client, into the storage it will open. With `machineClients` its MCP endpoint serves that client.
 */
export async function startHost(
  options: HostTargetOptions,
): Promise<RunningTarget<Announcement & McpAnnouncement>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'keyhold-bench-host-'));
  const key =
    options.alg === 'HS256'
      ? { kid: 'demo-hs', alg: 'HS256', secret: randomToken(32), active: true }
      : undefined;
  if (key)
    writeFileSync(join(dataDir, 'signing-keys.json'), JSON.stringify({ demo: [key] }), { mode: 0o600 });
  let storage: OAuthStorage;
  let close: () => Promise<void>;
  let databaseUrl: string | undefined;
  let dropSchema: (() => Promise<void>) | undefined;
  if (options.store === 'postgres') {
    const base = options.postgresUrl ?? 'postgres://postgres@127.0.0.1:5432/test';
    const schema = `keyhold_bench_host_${process.pid}`;
    const admin = createPostgresPool(base, { max: 1 });
    await admin.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    databaseUrl = `${base}${base.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    const pool = createPostgresPool(databaseUrl);
    storage = (await createPostgresStores(pool)).oauth;
    close = () => pool.end();
    dropSchema = async () => {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    };
  } else {
    const db = openSqliteDatabase(join(dataDir, 'keyhold.db'));
    storage = createSqliteStores(db).oauth;
    close = async () => {
      db.close();
    };
  }
  const now = Date.now();
  const clientSecret = randomToken();
  await storage.clients.create('demo', {
    clientId: 'bench-client',
    redirectUris: [],
    grantTypes: ['client_credentials'],
    responseTypes: [],
    tokenEndpointAuthMethod: 'client_secret_basic',
    clientSecretHash: sha256Base64url(clientSecret),
    // As `keyhold clients add --grant client_credentials --scope mcp:tools` provisions a machine client: without
    // a scope a client_credentials token carries none, and the MCP endpoint answers 403 insufficient_scope.
    ...(options.machineClients ? { scope: 'mcp:tools' } : {}),
    createdAt: now,
    registration: 'provisioned',
  });
  await storage.clients.create('demo', {
    clientId: 'bench-public',
    redirectUris: ['http://127.0.0.1/callback'],
    grantTypes: ['authorization_code', 'refresh_token'],
    responseTypes: ['code'],
    tokenEndpointAuthMethod: 'none',
    createdAt: now,
    registration: 'provisioned',
  });
  const refreshTokens: string[] = [];
  for (let i = 0; i < (options.refreshSeeds ?? 0); i++) {
    const token = randomToken();
    refreshTokens.push(token);
    await storage.refreshTokens.save('demo', {
      tokenHash: sha256Base64url(token),
      familyId: randomToken(16),
      clientId: 'bench-public',
      clientType: 'registered',
      userId: 'owner',
      scope: 'openid mcp:tools offline_access',
      resources: [],
      createdAt: now,
      expiresAt: now + 86_400_000,
    });
  }
  await close();
  const child = spawn(process.execPath, [...nodeArgs, options.main ?? HOST_MAIN], {
    env: {
      ...process.env,
      PORT: '0',
      KEYHOLD_DATA_DIR: dataDir,
      KEYHOLD_RATE_LIMITS: 'off',
      LOG_LEVEL: 'warn',
      SVC_SINGLE_USER: '1',
      ...(options.machineClients ? { KEYHOLD_MACHINE_CLIENTS: '1' } : {}),
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const announcement = await waitFor<Announcement & McpAnnouncement>(child, (output) => {
    const match = /listening on (https?:\/\/\S+)/.exec(output);
    return match
      ? {
          url: match[1]!,
          tokenPath: '/tenant/demo/token',
          introspectPath: '/tenant/demo/introspect',
          clientId: 'bench-client',
          clientSecret,
          refreshClientId: 'bench-public',
          refreshTokens,
          mcpPath: '/tenant/demo/mcp',
        }
      : undefined;
  });
  return {
    announcement,
    stop: stopper(child, async () => {
      await dropSchema?.();
      rmSync(dataDir, { recursive: true, force: true });
    }),
  };
}
