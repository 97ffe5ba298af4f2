import { join } from 'node:path';
import type { Logger, RateLimiter } from '@keyhold/core';
import type { OAuthStorage } from '@keyhold/oauth-core';
import {
  checkPostgresReadiness,
  createPostgresOAuthStorage,
  createPostgresPool,
  createPostgresTokenVaultStorage,
  OAUTH_POSTGRES_SWEPT_TABLES,
  type PostgresPool,
  startPostgresExpirySweeper,
  TOKEN_VAULT_POSTGRES_SWEPT_TABLES,
} from '@keyhold/store-postgres';
import {
  checkRedisReadiness,
  createRedisClient,
  createRedisRateLimiter,
  createRedisRefreshLock,
  createRedisReplayCache,
  createRedisRequestStateStore,
  type RedisClient,
} from '@keyhold/store-redis';
import {
  checkSqliteReadiness,
  createSqliteOAuthStorage,
  createSqliteTokenVaultStorage,
  OAUTH_SQLITE_SWEPT_TABLES,
  openSqliteDatabase,
  type SqliteDatabase,
  startSqliteExpirySweeper,
  TOKEN_VAULT_SQLITE_SWEPT_TABLES,
} from '@keyhold/store-sqlite';
import type { TokenVaultStorage } from '@keyhold/token-vault';
import type { HostConfig } from './config.js';

/** What `/health/ready` learns from the stores: the names of those that did not answer in time. */
export interface StorageReadiness {
  readonly down: readonly string[];
}

/** Where the host keeps its state, and the shared coordination several instances need. */
export interface HostStorage {
  readonly kind: 'sqlite' | 'postgres';
  /** The open database, for the host's own tables (shared state, tool records) and the claim store. */
  readonly database: { readonly sqlite: SqliteDatabase } | { readonly postgres: PostgresPool };
  readonly oauth: OAuthStorage;
  readonly vault: TokenVaultStorage;
  /** Present with Redis: shared across instances. Without it each instance limits and dedupes alone. */
  readonly rateLimiter?: RateLimiter;
  readonly replayCache?: ReturnType<typeof createRedisReplayCache>;
  /** Present with Redis: spent MCP requestState ids, shared across instances (else each instance's memory). */
  readonly requestStateStore?: ReturnType<typeof createRedisRequestStateStore>;
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
 * The Redis stores, every one under `KEYHOLD_REDIS_PREFIX`, so deployments (and test runs) sharing one
 * Redis never touch each other's counters, leases, replay ids or request states.
 */
function redisStores(redis: RedisClient, keyPrefix: string) {
  const options = { keyPrefix };
  return {
    rateLimiter: createRedisRateLimiter(redis, options),
    refreshLock: createRedisRefreshLock(redis, options),
    replayCache: createRedisReplayCache(redis, options),
    requestStateStore: createRedisRequestStateStore(redis, options),
  };
}

/**
 * One machine: a SQLite file in the data directory (the default). Several instances: PostgreSQL
 * (`DATABASE_URL`) for records and Redis (`REDIS_URL`) for the refresh lock, rate limiter and replay cache.
 * With SQLite, `REDIS_URL` still gives the rate limits a shared counter store (several processes on one machine).
 * Every wait on a store is bounded (`config.storageTimeouts`), and the pool and the Redis client log their
 * connection state through the host's logger.
 */
export async function openHostStorage(config: HostConfig, logger: Logger): Promise<HostStorage> {
  const timeouts = config.storageTimeouts;
  const redis =
    config.redisUrl === undefined
      ? undefined
      : createRedisClient(config.redisUrl, {
          ...(timeouts.redisCommandMs === undefined ? {} : { commandTimeoutMs: timeouts.redisCommandMs }),
          logger,
        });
  const shared = redis ? redisStores(redis, config.redisKeyPrefix) : undefined;
  const redisCheck = (timeoutMs: number): Record<string, ReadinessCheck> =>
    redis ? { redis: () => checkRedisReadiness(redis, { timeoutMs }) } : {};

  if (config.databaseUrl === undefined) {
    const db = openSqliteDatabase(join(config.dataDir, 'keyhold.db'), {
      ...(timeouts.sqliteBusyMs === undefined ? {} : { busyTimeoutMs: timeouts.sqliteBusyMs }),
    });
    const oauth = createSqliteOAuthStorage(db);
    const vault = createSqliteTokenVaultStorage(db);
    // The same sweeper API as PostgreSQL's: expired rows (and unused dynamic clients) go in the background.
    const sweeper = startSqliteExpirySweeper(db, {
      tables: [...OAUTH_SQLITE_SWEPT_TABLES, ...TOKEN_VAULT_SQLITE_SWEPT_TABLES],
      intervalSeconds: config.sweepIntervalSeconds,
      logger,
    });
    return {
      kind: 'sqlite',
      database: { sqlite: db },
      oauth,
      vault,
      ...(shared ? { rateLimiter: shared.rateLimiter, requestStateStore: shared.requestStateStore } : {}),
      checkReadiness: (timeoutMs) =>
        downOf({ sqlite: () => checkSqliteReadiness(db), ...redisCheck(timeoutMs) }),
      close: async () => {
        await sweeper.stop();
        db.close();
        redis?.disconnect();
      },
    };
  }
  const pool = createPostgresPool(config.databaseUrl, {
    ...(timeouts.postgresConnectMs === undefined ? {} : { connectionTimeoutMs: timeouts.postgresConnectMs }),
    ...(timeouts.postgresStatementMs === undefined
      ? {}
      : { statementTimeoutMs: timeouts.postgresStatementMs }),
    ...(timeouts.postgresQueryMs === undefined ? {} : { queryTimeoutMs: timeouts.postgresQueryMs }),
    logger,
  });
  const oauth = await createPostgresOAuthStorage(pool);
  const vault = await createPostgresTokenVaultStorage(pool);
  const sweeper = startPostgresExpirySweeper(pool, {
    tables: [...OAUTH_POSTGRES_SWEPT_TABLES, ...TOKEN_VAULT_POSTGRES_SWEPT_TABLES],
    intervalSeconds: config.sweepIntervalSeconds,
    logger,
  });
  return {
    kind: 'postgres',
    database: { postgres: pool },
    oauth,
    vault: shared ? { ...vault, refreshLock: shared.refreshLock } : vault,
    ...(shared
      ? {
          rateLimiter: shared.rateLimiter,
          replayCache: shared.replayCache,
          requestStateStore: shared.requestStateStore,
        }
      : {}),
    checkReadiness: (timeoutMs) =>
      downOf({ postgres: () => checkPostgresReadiness(pool, { timeoutMs }), ...redisCheck(timeoutMs) }),
    close: async () => {
      await sweeper.stop();
      await pool.end();
      redis?.disconnect();
    },
  };
}
