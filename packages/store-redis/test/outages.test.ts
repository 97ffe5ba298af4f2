import { type Logger, StorageUnavailableError } from '@keyhold/core';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type FaultProxy, startFaultProxy } from '../../../test-support/fault-proxy.js';
import { checkRedisReadiness } from '../src/availability.js';
import { createRedisClient, type RedisClient } from '../src/index.js';
import { createRedisOnceStore } from '../src/once-store.js';
import { createRedisRateLimiter } from '../src/rate-limiter.js';
import { createRedisRefreshLock } from '../src/refresh-lock.js';
import { REDIS_URL, requireRedis, uniquePrefix } from './redis.js';

const available = await requireRedis();

const COMMAND_TIMEOUT_MS = 300;
// Generous: the machine is shared with other test runs; the point is "bounded", not "fast".
const SLACK_MS = 1500;

interface LogLine {
  level: keyof Logger;
  message: string | undefined;
}

function recordingLogger(): Logger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: keyof Logger) => (_fields: Record<string, unknown>, message?: string) => {
    lines.push({ level, message });
  };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function ready(redis: RedisClient): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => redis.once('ready', () => resolve()));
}

async function elapsedMs(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** Every store of the package with one call each, and the component its outage must name. */
function everyStore(redis: RedisClient, keyPrefix: string) {
  const now = Date.now();
  const limiter = createRedisRateLimiter(redis, { keyPrefix });
  const lock = createRedisRefreshLock(redis, { keyPrefix });
  const once = createRedisOnceStore(redis, { keyPrefix });
  return [
    { component: 'redis:limiter', call: () => limiter.increment('ip', now + 60_000, now) },
    { component: 'redis:limiter', call: () => limiter.reset('ip') },
    { component: 'redis:lock', call: () => lock.acquire('grant', now, now + 30_000) },
    { component: 'redis:lock', call: () => lock.release('grant', 'token') },
    { component: 'redis:once', call: () => once.consume(`key-${Math.random()}`, now + 60_000, now) },
    { component: 'redis:once', call: () => once.release('key') },
  ];
}

describe.skipIf(!available)('a Redis client survives its server and bounds every wait', () => {
  let proxy: FaultProxy;
  let redis: RedisClient;
  let logger: ReturnType<typeof recordingLogger>;
  let keyPrefix: string;
  const consoleError = vi.spyOn(console, 'error');
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown): void => {
    uncaught.push(error);
  };

  beforeAll(async () => {
    const target = new URL(REDIS_URL);
    proxy = await startFaultProxy({ host: target.hostname, port: Number(target.port || 6379) });
    process.on('uncaughtException', onUncaught);
  });
  afterAll(async () => {
    process.off('uncaughtException', onUncaught);
    consoleError.mockRestore();
    await proxy?.close();
  });
  beforeEach(async () => {
    logger = recordingLogger();
    keyPrefix = uniquePrefix();
    consoleError.mockClear();
    redis = createRedisClient(`redis://127.0.0.1:${proxy.port}`, {
      commandTimeoutMs: COMMAND_TIMEOUT_MS,
      connectTimeoutMs: 500,
      logger,
    });
    await ready(redis);
  });
  afterEach(async () => {
    await proxy.heal();
    redis.disconnect();
    expect(uncaught).toEqual([]);
    // ioredis prints "[ioredis] Unhandled error event" through console.error when no one listens.
    expect(consoleError).not.toHaveBeenCalled();
  });

  const stateLines = () => logger.lines.map((line) => `${line.level} ${line.message}`);

  it('refused: every store fails fast with StorageUnavailableError naming its component; one log line per change', async () => {
    await proxy.refuse();
    await sleep(100);
    for (const { component, call } of everyStore(redis, keyPrefix)) {
      const took = await elapsedMs(async () => {
        const error = await call().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(StorageUnavailableError);
        expect(error).toMatchObject({ component, code: 'ERR_STORAGE_UNAVAILABLE' });
      });
      expect(took).toBeLessThan(COMMAND_TIMEOUT_MS + SLACK_MS);
    }
    expect(await checkRedisReadiness(redis, { timeoutMs: 200 })).toMatchObject({ ok: false });
    await sleep(300); // several failed reconnection attempts
    expect(stateLines()).toEqual(['warn redis connection lost']);
    await proxy.heal();
    await ready(redis);
    for (const { call } of everyStore(redis, keyPrefix)) await call();
    expect(await checkRedisReadiness(redis)).toEqual({ ok: true });
    expect(stateLines()).toEqual(['warn redis connection lost', 'info redis connection restored']);
  });

  it('stalled (bytes accepted, nothing answered): commands fail within commandTimeoutMs and the client recovers', async () => {
    const [limiter] = everyStore(redis, keyPrefix);
    proxy.stall();
    const took = await elapsedMs(async () => {
      await expect(limiter?.call()).rejects.toMatchObject({ component: 'redis:limiter' });
    });
    expect(took).toBeGreaterThanOrEqual(COMMAND_TIMEOUT_MS - 50);
    expect(took).toBeLessThan(COMMAND_TIMEOUT_MS + SLACK_MS);
    const readiness = await elapsedMs(async () => {
      expect(await checkRedisReadiness(redis, { timeoutMs: 200 })).toMatchObject({ ok: false });
    });
    expect(readiness).toBeLessThan(200 + SLACK_MS);
    await proxy.heal();
    await ready(redis);
    expect(await limiter?.call()).toBeGreaterThanOrEqual(1);
    expect(stateLines()).toEqual(['warn redis connection lost', 'info redis connection restored']);
  });

  it('dropped (a server restart): the process survives and the same client answers again', async () => {
    const [limiter] = everyStore(redis, keyPrefix);
    await limiter?.call();
    proxy.dropAll();
    const during = await limiter?.call().catch((e: unknown) => e);
    if (during instanceof Error) expect(during).toMatchObject({ component: 'redis:limiter' });
    await ready(redis);
    expect(await limiter?.call()).toBeGreaterThanOrEqual(1);
  });

  it('a reply that says the data is wrong (WRONGTYPE) stays a plain error: it is a bug, not an outage', async () => {
    await redis.set(`${keyPrefix}rate:ip`, 'not a hash');
    const error = await createRedisRateLimiter(redis, { keyPrefix })
      .increment('ip', Date.now() + 60_000, Date.now())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(StorageUnavailableError);
    expect((error as Error).message).toMatch(/WRONGTYPE/);
    await redis.del(`${keyPrefix}rate:ip`);
  });

  it('every store writes only under its keyPrefix', async () => {
    // Every call but the two deletions (the limiter's reset, the once store's release) leaves a key.
    const writers = everyStore(redis, keyPrefix).filter((_, index) => index !== 1 && index !== 5);
    for (const { call } of writers) await call();
    const plain = new Redis(REDIS_URL);
    try {
      const keys: string[] = [];
      let cursor = '0';
      do {
        const [next, batch] = await plain.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 1000);
        cursor = next;
        keys.push(...batch);
      } while (cursor !== '0');
      const namespaces = new Set(keys.map((key) => key.slice(keyPrefix.length).split(':')[0]));
      expect([...namespaces].sort()).toEqual(['once', 'rate', 'refresh-lock']);
      if (keys.length > 0) await plain.del(...keys);
    } finally {
      plain.disconnect();
    }
  });
});
