import { join } from 'node:path';
import type { Logger, RateLimiter } from '@keyhold/core';
import type { OAuthStorage } from '@keyhold/oauth-core';
import {
  createPostgresOAuthStorage,
  createPostgresPool,
  createPostgresTokenVaultStorage,
  OAUTH_POSTGRES_SWEPT_TABLES,
  type PostgresPool,
  startPostgresExpirySweeper,
  TOKEN_VAULT_POSTGRES_SWEPT_TABLES,
} from '@keyhold/store-postgres';
import {
  createRedisClient,
  createRedisRateLimiter,
  createRedisRefreshLock,
  createRedisReplayCache,
  createRedisRequestStateStore,
} from '@keyhold/store-redis';
import {
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
  close(): Promise<void>;
}

/**
 * One machine: a SQLite file in the data directory (the default). Several instances: PostgreSQL
 * (`DATABASE_URL`) for records and Redis (`REDIS_URL`) for the refresh lock, rate limiter and replay cache.
 * With SQLite, `REDIS_URL` still gives the rate limits a shared counter store (several processes on one machine).
 */
export async function openHostStorage(config: HostConfig, logger: Logger): Promise<HostStorage> {
  const redisOptions = { keyPrefix: config.redisKeyPrefix };
  if (config.databaseUrl === undefined) {
    const db = openSqliteDatabase(join(config.dataDir, 'keyhold.db'));
    const oauth = createSqliteOAuthStorage(db);
    const vault = createSqliteTokenVaultStorage(db);
    // The same sweeper API as PostgreSQL's: expired rows (and unused dynamic clients) go in the background.
    const sweeper = startSqliteExpirySweeper(db, {
      tables: [...OAUTH_SQLITE_SWEPT_TABLES, ...TOKEN_VAULT_SQLITE_SWEPT_TABLES],
      intervalSeconds: config.sweepIntervalSeconds,
      logger,
    });
    const redis = config.redisUrl === undefined ? undefined : createRedisClient(config.redisUrl);
    return {
      kind: 'sqlite',
      database: { sqlite: db },
      oauth,
      vault,
      ...(redis
        ? {
            rateLimiter: createRedisRateLimiter(redis, redisOptions),
            requestStateStore: createRedisRequestStateStore(redis, redisOptions),
          }
        : {}),
      close: async () => {
        await sweeper.stop();
        db.close();
        redis?.disconnect();
      },
    };
  }
  const pool = createPostgresPool(config.databaseUrl);
  const oauth = await createPostgresOAuthStorage(pool);
  const vault = await createPostgresTokenVaultStorage(pool);
  const sweeper = startPostgresExpirySweeper(pool, {
    tables: [...OAUTH_POSTGRES_SWEPT_TABLES, ...TOKEN_VAULT_POSTGRES_SWEPT_TABLES],
    intervalSeconds: config.sweepIntervalSeconds,
    logger,
  });
  const redis = config.redisUrl === undefined ? undefined : createRedisClient(config.redisUrl);
  return {
    kind: 'postgres',
    database: { postgres: pool },
    oauth,
    vault: redis ? { ...vault, refreshLock: createRedisRefreshLock(redis) } : vault,
    ...(redis
      ? {
          rateLimiter: createRedisRateLimiter(redis, redisOptions),
          replayCache: createRedisReplayCache(redis),
          requestStateStore: createRedisRequestStateStore(redis, redisOptions),
        }
      : {}),
    close: async () => {
      await sweeper.stop();
      await pool.end();
      redis?.disconnect();
    },
  };
}
