import type { ClaimStore } from '@keyhold/claim-codes';
import type { OnceStore } from '@keyhold/core';
import type { OAuthStorage } from '@keyhold/oauth-core';
import type { LoginTransactionStore, UserStore } from '@keyhold/oauth-core/federated';
import {
  CLAIMS_SWEPT_TABLES,
  OAUTH_SWEPT_TABLES,
  ONCE_SWEPT_TABLES,
  TOKEN_VAULT_SWEPT_TABLES,
} from '@keyhold/store-sql-common';
import type { TokenVaultStorage } from '@keyhold/token-vault';
import {
  checkPostgresReadiness,
  type PostgresReadiness,
  type PostgresReadinessOptions,
} from './availability.js';
import { createPostgresClaimStore } from './claim-store.js';
import { createPostgresPool, type PostgresPool, type PostgresPoolOptions } from './database.js';
import { createPostgresLoginTransactionStore, createPostgresUserStore } from './federated-store.js';
import { createPostgresOAuthStorage } from './oauth-store.js';
import { createPostgresOnceStore } from './once-store.js';
import {
  type PostgresExpirySweeper,
  type PostgresExpirySweeperOptions,
  startPostgresExpirySweeper,
} from './sweeper.js';
import { createPostgresTokenVaultStorage } from './token-vault-store.js';

/** Options of {@link PostgresStores.startSweeper}: every table of the stores is swept. */
export type PostgresSweeperOptions = Omit<PostgresExpirySweeperOptions, 'tables'>;

/** Everything the PostgreSQL backend provides, on one pool: what {@link createPostgresStores} returns. */
export interface PostgresStores {
  /** The pool, for the host's own tables. */
  readonly pool: PostgresPool;
  /** oauth-core's storage; its `onceStore` is the same as {@link PostgresStores.onceStore}. */
  readonly oauth: OAuthStorage;
  /** token-vault's grants, pending authorizations and refresh lock. */
  readonly vault: TokenVaultStorage;
  /** claim-codes' store. */
  readonly claims: ClaimStore;
  /** The spend-once store (client assertions, MCP `requestState` ids, webhook deliveries). */
  readonly onceStore: OnceStore;
  /** oauth-core's federated-login users. */
  readonly users: UserStore;
  /** oauth-core's federated-login transactions. */
  readonly loginTransactions: LoginTransactionStore;
  /** Whether the database answers within `timeoutMs`, for a readiness probe; never throws. */
  checkReadiness(options?: PostgresReadinessOptions): Promise<PostgresReadiness>;
  /**
   * Starts deleting expired rows of every table above in the background, on a timer that never keeps the
   * process alive: `intervalSeconds` (60), `batchSize` (1000 rows per statement), `maxBatchesPerSweep` (10),
   * `clock`, `logger`. The result's `sweepNow()` runs one bounded sweep and answers how many rows went;
   * `stop()` (before closing) waits for a sweep in progress.
   */
  startSweeper(options?: PostgresSweeperOptions): PostgresExpirySweeper;
  /** Ends the pool when {@link createPostgresStores} opened it from a URL; a pool you passed stays yours. */
  close(): Promise<void>;
}

/**
 * Every store of the PostgreSQL backend on one pool (yours, or one opened from a `postgres://` URL with
 * `options`), each after running its migrations under the advisory lock: oauth storage, token vault,
 * claim codes, the spend-once store and federated login, with a readiness check and one sweeper for all
 * their tables.
 *
 * @example
 * ```ts
 * const stores = await createPostgresStores('postgres://127.0.0.1:5432/keyhold', { queryTimeoutMs: 5000 });
 * const sweeper = stores.startSweeper({ intervalSeconds: 60 });
 * ```
 */
export async function createPostgresStores(
  pool: PostgresPool | string,
  options: PostgresPoolOptions = {},
): Promise<PostgresStores> {
  const owned = typeof pool === 'string';
  const db = typeof pool === 'string' ? createPostgresPool(pool, options) : pool;
  try {
    // One at a time: every migration takes the same advisory lock anyway.
    const oauth = await createPostgresOAuthStorage(db);
    const onceStore = oauth.onceStore ?? (await createPostgresOnceStore(db));
    const vault = await createPostgresTokenVaultStorage(db);
    const claims = await createPostgresClaimStore(db);
    const users = await createPostgresUserStore(db);
    const loginTransactions = await createPostgresLoginTransactionStore(db);
    return {
      pool: db,
      oauth,
      vault,
      claims,
      onceStore,
      users,
      loginTransactions,
      checkReadiness: (readinessOptions) => checkPostgresReadiness(db, readinessOptions),
      startSweeper: (sweeperOptions = {}) =>
        startPostgresExpirySweeper(db, {
          ...sweeperOptions,
          tables: [
            ...OAUTH_SWEPT_TABLES,
            ...TOKEN_VAULT_SWEPT_TABLES,
            ...CLAIMS_SWEPT_TABLES,
            ...ONCE_SWEPT_TABLES,
          ],
        }),
      close: async () => {
        if (owned) await db.end();
      },
    };
  } catch (error) {
    if (owned) await db.end().catch(() => {});
    throw error;
  }
}
