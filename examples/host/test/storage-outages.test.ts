import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@keyhold/core';
import { createRedisClient } from '@keyhold/store-redis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FaultProxy, startFaultProxy } from '../../../test-support/fault-proxy.js';
import { readConfig } from '../src/config.js';
import { withRequestTimeout } from '../src/request-timeout.js';
import { openHostStorage } from '../src/storage.js';
import { type HostProcess, startHost } from './host-process.js';

const POSTGRES_URL = process.env['KEYHOLD_TEST_POSTGRES_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env['KEYHOLD_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
// Generous: the machine is shared with other test runs; the point is "bounded", not "fast".
const SLACK_MS = 2000;

async function servicesAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3000 });
  const redis = createRedisClient(REDIS_URL, { connectTimeoutMs: 3000, commandTimeoutMs: 3000 });
  try {
    await client.connect();
    await redis.ping();
    return true;
  } catch (error) {
    const reason = (error as Error).message;
    if (process.env['CI'] === 'true')
      throw new Error(`storage outage tests need PostgreSQL and Redis: ${reason}`);
    console.warn(`SKIPPED storage outage host tests: ${reason}`);
    return false;
  } finally {
    await client.end().catch(() => {});
    redis.disconnect();
  }
}

const available = await servicesAvailable();

/** A database URL through `port` whose tables live in `schema`. */
function databaseUrl(port: number, schema: string): string {
  const url = new URL(POSTGRES_URL);
  url.port = String(port);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

function register(url: string): Promise<Response> {
  return fetch(`${url}/tenant/demo/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'none' }),
  });
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

/** Polls `/health/ready` until it answers 200, for at most `withinMs`. */
async function readyWithin(url: string, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if ((await fetch(`${url}/health/ready`)).status === 200) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}

const count = (text: string, needle: string) => text.split(needle).length - 1;

describe('readConfig: the storage and request timeouts', () => {
  it('reads each variable as a positive whole number of milliseconds; unset leaves the store default', () => {
    const config = readConfig(
      {
        KEYHOLD_PG_CONNECT_TIMEOUT_MS: '700',
        KEYHOLD_PG_STATEMENT_TIMEOUT_MS: '800',
        KEYHOLD_PG_QUERY_TIMEOUT_MS: '900',
        KEYHOLD_REDIS_COMMAND_TIMEOUT_MS: '300',
        KEYHOLD_SQLITE_BUSY_TIMEOUT_MS: '1000',
        KEYHOLD_REQUEST_TIMEOUT_MS: '5000',
      },
      '/',
    );
    expect(config.storageTimeouts).toEqual({
      postgresConnectMs: 700,
      postgresStatementMs: 800,
      postgresQueryMs: 900,
      redisCommandMs: 300,
      sqliteBusyMs: 1000,
    });
    expect(config.requestTimeoutMs).toBe(5000);
    expect(readConfig({}, '/').storageTimeouts).toEqual({});
    expect(readConfig({}, '/').requestTimeoutMs).toBe(15_000);
  });

  it('refuses a value that is not a positive whole number, and a query timeout below the statement timeout', () => {
    for (const variable of [
      'KEYHOLD_PG_CONNECT_TIMEOUT_MS',
      'KEYHOLD_PG_STATEMENT_TIMEOUT_MS',
      'KEYHOLD_PG_QUERY_TIMEOUT_MS',
      'KEYHOLD_REDIS_COMMAND_TIMEOUT_MS',
      'KEYHOLD_SQLITE_BUSY_TIMEOUT_MS',
      'KEYHOLD_REQUEST_TIMEOUT_MS',
    ]) {
      for (const bad of ['0', '-1', '1.5', 'soon', 'Infinity', '1e3']) {
        expect(() => readConfig({ [variable]: bad }, '/'), `${variable}=${bad}`).toThrow(variable);
      }
    }
    expect(() =>
      readConfig({ KEYHOLD_PG_STATEMENT_TIMEOUT_MS: '3000', KEYHOLD_PG_QUERY_TIMEOUT_MS: '2000' }, '/'),
    ).toThrow('KEYHOLD_PG_QUERY_TIMEOUT_MS');
  });
});

describe('withRequestTimeout: a request the handler leaves unanswered gets 503, a started stream is never cut', () => {
  let server: Server;
  let url: string;
  const lateWrites: string[] = [];
  beforeAll(async () => {
    const handler = (request: IncomingMessage, response: ServerResponse): void => {
      if (request.url === '/hang') {
        // Answers long after the timeout, as a handler stuck on storage would: its writes must go nowhere.
        setTimeout(() => {
          try {
            response.writeHead(200, { 'content-type': 'text/plain' });
            response.end('late');
            lateWrites.push('ok');
          } catch (error) {
            lateWrites.push(String(error));
          }
        }, 400);
        return;
      }
      // An event stream whose head goes out at once and whose events run past the timeout.
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      let sent = 0;
      const tick = setInterval(() => {
        response.write(`data: ${sent}\n\n`);
        if (++sent === 4) {
          clearInterval(tick);
          response.end();
        }
      }, 150);
    };
    server = createServer(withRequestTimeout(handler, { timeoutMs: 200, logger: silentLogger }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('answers 503 with Retry-After and temporarily_unavailable once the timeout passes, and drops the late answer', async () => {
    const { value: response, ms } = await timed(() => fetch(`${url}/hang`));
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await response.json()).toMatchObject({ error: 'temporarily_unavailable' });
    expect(ms).toBeLessThan(200 + SLACK_MS);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(lateWrites).toEqual(['ok']);
  });

  it('lets a stream that started before the timeout run to its end', async () => {
    const response = await fetch(`${url}/stream`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('data: 0\n\ndata: 1\n\ndata: 2\n\ndata: 3\n\n');
  });
});

describe('/health/ready on the default SQLite host', () => {
  it('answers 200 {status:"ready"} with no-store', async () => {
    const host = await startHost();
    try {
      const ready = await fetch(`${host.url}/health/ready`);
      expect(ready.status).toBe(200);
      expect(ready.headers.get('cache-control')).toContain('no-store');
      expect(await ready.json()).toEqual({ status: 'ready' });
    } finally {
      await host.stop({ removeData: true });
    }
  });
});

describe.skipIf(!available)(
  'the host on PostgreSQL and Redis survives their outages and reports them',
  () => {
    const schema = `keyhold_hosts_${randomBytes(5).toString('hex')}`;
    const keyPrefix = `keyhold-test:${randomBytes(6).toString('hex')}:`;
    let admin: pg.Client;
    let pgProxy: FaultProxy;
    let redisProxy: FaultProxy;
    let host: HostProcess;

    beforeAll(async () => {
      admin = new pg.Client({ connectionString: POSTGRES_URL });
      await admin.connect();
      await admin.query(`CREATE SCHEMA ${schema}`);
      const pgTarget = new URL(POSTGRES_URL);
      const redisTarget = new URL(REDIS_URL);
      pgProxy = await startFaultProxy({ host: pgTarget.hostname, port: Number(pgTarget.port || 5432) });
      redisProxy = await startFaultProxy({
        host: redisTarget.hostname,
        port: Number(redisTarget.port || 6379),
      });
      host = await startHost({
        DATABASE_URL: databaseUrl(pgProxy.port, schema),
        REDIS_URL: `redis://127.0.0.1:${redisProxy.port}`,
        KEYHOLD_REDIS_PREFIX: keyPrefix,
        KEYHOLD_PG_CONNECT_TIMEOUT_MS: '500',
        KEYHOLD_PG_STATEMENT_TIMEOUT_MS: '500',
        KEYHOLD_PG_QUERY_TIMEOUT_MS: '800',
        KEYHOLD_REDIS_COMMAND_TIMEOUT_MS: '300',
        LOG_LEVEL: 'info',
      });
    });
    afterAll(async () => {
      await host?.stop({ removeData: true });
      await pgProxy?.close();
      await redisProxy?.close();
      await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin?.end();
      const redis = createRedisClient(REDIS_URL);
      const keys = await redis.keys(`${keyPrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    });

    it('/health/ready answers 200 {status:"ready"} while every store answers; /health stays plain liveness', async () => {
      const ready = await fetch(`${host.url}/health/ready`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ready' });
      expect((await fetch(`${host.url}/health`)).status).toBe(200);
    });

    it('PostgreSQL refused: /health/ready answers 503 naming postgres, requests answer within the bound, one log line', async () => {
      await pgProxy.refuse();
      const { value: ready, ms } = await timed(() => fetch(`${host.url}/health/ready`));
      expect(ready.status).toBe(503);
      expect(ready.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await ready.json()).toEqual({ status: 'unavailable', down: ['postgres'] });
      expect(ms).toBeLessThan(1000 + SLACK_MS);
      for (let attempt = 0; attempt < 3; attempt++) {
        const { value: response, ms: registerMs } = await timed(() => register(host.url));
        expect(response.status).toBeGreaterThanOrEqual(500);
        expect(registerMs).toBeLessThan(500 + 800 + SLACK_MS);
      }
      expect((await fetch(`${host.url}/health`)).status).toBe(200);
      await pgProxy.heal();
      expect(await readyWithin(host.url, 5000)).toBe(true);
      expect((await register(host.url)).status).toBe(201);
      expect(count(host.output(), 'postgres connection lost')).toBe(1);
      expect(count(host.output(), 'postgres connection restored')).toBe(1);
    });

    it('PostgreSQL drops every connection (a restart): the process survives and serves again', async () => {
      await register(host.url);
      pgProxy.dropAll();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(host.child.exitCode).toBeNull();
      expect(await readyWithin(host.url, 5000)).toBe(true);
      expect((await register(host.url)).status).toBe(201);
    });

    it('Redis refused: /health/ready answers 503 naming redis, logged once, never "Unhandled error event"', async () => {
      await redisProxy.refuse();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const ready = await fetch(`${host.url}/health/ready`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: 'unavailable', down: ['redis'] });
      const { ms } = await timed(() => register(host.url));
      expect(ms).toBeLessThan(300 + SLACK_MS);
      await redisProxy.heal();
      expect(await readyWithin(host.url, 6000)).toBe(true);
      expect(host.child.exitCode).toBeNull();
      expect(host.output()).not.toContain('Unhandled error event');
      expect(count(host.output(), 'redis connection lost')).toBe(1);
      expect(count(host.output(), 'redis connection restored')).toBe(1);
    });
  },
);

describe.skipIf(!available)(
  'KEYHOLD_REQUEST_TIMEOUT_MS: a request stuck on a stalled database gets 503',
  () => {
    const schema = `keyhold_hosts_${randomBytes(5).toString('hex')}`;
    let admin: pg.Client;
    let pgProxy: FaultProxy;
    let host: HostProcess;

    beforeAll(async () => {
      admin = new pg.Client({ connectionString: POSTGRES_URL });
      await admin.connect();
      await admin.query(`CREATE SCHEMA ${schema}`);
      const pgTarget = new URL(POSTGRES_URL);
      pgProxy = await startFaultProxy({ host: pgTarget.hostname, port: Number(pgTarget.port || 5432) });
      host = await startHost({
        DATABASE_URL: databaseUrl(pgProxy.port, schema),
        // Storage waits longer than the request may: the request timeout is what answers.
        KEYHOLD_PG_CONNECT_TIMEOUT_MS: '10000',
        KEYHOLD_PG_STATEMENT_TIMEOUT_MS: '10000',
        KEYHOLD_PG_QUERY_TIMEOUT_MS: '10000',
        KEYHOLD_REQUEST_TIMEOUT_MS: '1000',
      });
    });
    afterAll(async () => {
      await host?.stop({ removeData: true });
      await pgProxy?.close();
      await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin?.end();
    });

    it('answers 503 with Retry-After after KEYHOLD_REQUEST_TIMEOUT_MS, and serves again once the database does', async () => {
      expect((await register(host.url)).status).toBe(201);
      pgProxy.stall();
      const { value: response, ms } = await timed(() => register(host.url));
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('1');
      expect(ms).toBeGreaterThanOrEqual(950);
      expect(ms).toBeLessThan(1000 + SLACK_MS);
      await pgProxy.heal();
      // The stalled connections were dropped; the pool opens new ones.
      expect(await readyWithin(host.url, 5000)).toBe(true);
      expect((await register(host.url)).status).toBe(201);
      expect(host.child.exitCode).toBeNull();
    });
  },
);

describe.skipIf(!available)('openHostStorage puts every Redis key under KEYHOLD_REDIS_PREFIX', () => {
  it('the refresh lock and the spend-once store too, beside the rate limiter', async () => {
    const schema = `keyhold_hosts_${randomBytes(5).toString('hex')}`;
    const keyPrefix = `keyhold-test:${randomBytes(6).toString('hex')}:`;
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    const dataDir = mkdtempSync(join(tmpdir(), 'keyhold-host-prefix-'));
    const redis = createRedisClient(REDIS_URL);
    try {
      const url = new URL(POSTGRES_URL);
      url.searchParams.set('options', `-c search_path=${schema}`);
      const config = readConfig(
        {
          DATABASE_URL: url.toString(),
          REDIS_URL,
          KEYHOLD_REDIS_PREFIX: keyPrefix,
          KEYHOLD_DATA_DIR: dataDir,
        },
        '/',
      );
      const stores = await openHostStorage(config, silentLogger);
      try {
        const now = Date.now();
        expect(await stores.vault.refreshLock.acquire('grant-key', now, now + 30_000)).toEqual(
          expect.any(String),
        );
        expect(await stores.onceStore.consume('webhook:1', now + 60_000, now)).toBe(true);
        expect(await stores.oauth.onceStore?.consume('webhook:1', now + 60_000, now)).toBe(false);
        expect(await stores.rateLimiter?.increment('ip', now + 60_000, now)).toBe(1);
      } finally {
        await stores.close();
      }
      const keys = await redis.keys(`${keyPrefix}*`);
      const namespaces = new Set(keys.map((key) => key.slice(keyPrefix.length).split(':')[0]));
      expect([...namespaces].sort()).toEqual(['once', 'rate', 'refresh-lock']);
      if (keys.length > 0) await redis.del(...keys);
    } finally {
      redis.disconnect();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
