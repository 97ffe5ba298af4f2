import { join } from 'node:path';
import type { ClaimStore } from '@keyhold/claim-codes';
import type { Logger, OnceStore, RateLimiter } from '@keyhold/core';
import type { OAuthStorage } from '@keyhold/oauth-core';
import { createPostgresStores, type PostgresPool } from '@keyhold/store-postgres';
import { createRedisStores, type RedisStores } from '@keyhold/store-redis';
import { createSqliteStores, openSqliteDatabase, type SqliteDatabase } from '@keyhold/store-sqlite';
import type { TokenVaultStorage } from '@keyhold/token-vault';
import type { HostConfig } from './config.js';

/** What `/health/ready` learns from the stores: the names of those that did not answer in time. */
export interface StorageReadiness {
  readonly down: readonly string[];
}

/** Where the host keeps its state, and the shared coordination several instances need. */
export interface HostStorage {
  readonly kind: 'sqlite' | 'postgres';
  /** The open database, for the host's own tables (shared state, tool records). */
  readonly database: { readonly sqlite: SqliteDatabase } | { readonly postgres: PostgresPool };
  readonly oauth: OAuthStorage;
  readonly vault: TokenVaultStorage;
  /** The database's claim store (the host uses it with PostgreSQL; on one machine codes live in claims.json). */
  readonly claims: ClaimStore;
  /**
   * The one spend-once store (client assertions, MCP requestState ids, webhook deliveries): Redis's when
   * configured, else the database's, so every instance (or process on the SQLite file) refuses a key once spent.
   */
  readonly onceStore: OnceStore;
  /** Present with Redis: shared across instances. Without it each instance limits alone. */
  readonly rateLimiter?: RateLimiter;
  /** Asks every configured store at once, each bounded by `timeoutMs`; never throws. */
  checkReadiness(timeoutMs: number): Promise<StorageReadiness>;
  close(): Promise<void>;
}

type ReadinessCheck = () => Promise<{ readonly ok: boolean }> | { readonly ok: boolean };

async function downOf(checks: Readonly<Record<string, ReadinessCheck>>): Promise<StorageReadiness> {
  const results = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => ({ name, ok: (await check()).ok })),
  );
  return { down: results.filter((result) => !result.ok).map((result) => result.name) };
}

/**
 * One machine: a SQLite file in the data directory (the default). Several instances: PostgreSQL
 * (`DATABASE_URL`) for records and Redis (`REDIS_URL`, every key under `KEYHOLD_REDIS_PREFIX`) for the refresh
 * lock, rate limiter and spend-once store. With SQLite, `REDIS_URL` still gives the rate limits a shared
 * counter store (several processes on one machine). Every wait on a store is bounded
 * (`config.storageTimeouts`), and the pool and the Redis client log their connection state through the
 * host's logger.
 */
export async function openHostStorage(config: HostConfig, logger: Logger): Promise<HostStorage> {
  const timeouts = config.storageTimeouts;
  const redis: RedisStores | undefined =
    config.redisUrl === undefined
      ? undefined
      : createRedisStores(config.redisUrl, {
          keyPrefix: config.redisKeyPrefix,
          ...(timeouts.redisCommandMs === undefined ? {} : { commandTimeoutMs: timeouts.redisCommandMs }),
          logger,
        });
  const redisCheck = (timeoutMs: number): Record<string, ReadinessCheck> =>
    redis ? { redis: () => redis.checkReadiness({ timeoutMs }) } : {};
  const sweep = { intervalSeconds: config.sweepIntervalSeconds, logger };

  if (config.databaseUrl === undefined) {
    const db = openSqliteDatabase(join(config.dataDir, 'keyhold.db'), {
      ...(timeouts.sqliteBusyMs === undefined ? {} : { busyTimeoutMs: timeouts.sqliteBusyMs }),
    });
    const sqlite = createSqliteStores(db);
    const sweeper = sqlite.startSweeper(sweep);
    const onceStore = redis?.onceStore ?? sqlite.onceStore;
    return {
      kind: 'sqlite',
      database: { sqlite: db },
      oauth: { ...sqlite.oauth, onceStore },
      vault: sqlite.vault,
      claims: sqlite.claims,
      onceStore,
      ...(redis ? { rateLimiter: redis.rateLimiter } : {}),
      checkReadiness: (timeoutMs) => downOf({ sqlite: sqlite.checkReadiness, ...redisCheck(timeoutMs) }),
      close: async () => {
        await sweeper.stop();
        db.close();
        await redis?.close();
      },
    };
  }
  const postgres = await createPostgresStores(config.databaseUrl, {
    ...(timeouts.postgresConnectMs === undefined ? {} : { connectionTimeoutMs: timeouts.postgresConnectMs }),
    ...(timeouts.postgresStatementMs === undefined
      ? {}
      : { statementTimeoutMs: timeouts.postgresStatementMs }),
    ...(timeouts.postgresQueryMs === undefined ? {} : { queryTimeoutMs: timeouts.postgresQueryMs }),
    logger,
  }).catch(async (error: unknown) => {
    await redis?.close();
    throw error;
  });
  const sweeper = postgres.startSweeper(sweep);
  const onceStore = redis?.onceStore ?? postgres.onceStore;
  return {
    kind: 'postgres',
    database: { postgres: postgres.pool },
    oauth: { ...postgres.oauth, onceStore },
    vault: redis ? { ...postgres.vault, refreshLock: redis.refreshLock } : postgres.vault,
    claims: postgres.claims,
    onceStore,
    ...(redis ? { rateLimiter: redis.rateLimiter } : {}),
    checkReadiness: (timeoutMs) =>
      downOf({ postgres: () => postgres.checkReadiness({ timeoutMs }), ...redisCheck(timeoutMs) }),
    close: async () => {
      await sweeper.stop();
      await postgres.close();
      await redis?.close();
    },
  };
}
