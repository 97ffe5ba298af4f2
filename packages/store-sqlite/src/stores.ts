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
import { checkSqliteReadiness, type SqliteReadiness } from './availability.js';
import { createSqliteClaimStore } from './claim-store.js';
import type { SqliteDatabase } from './database.js';
import { createSqliteLoginTransactionStore, createSqliteUserStore } from './federated-store.js';
import { createSqliteOAuthStorage } from './oauth-store.js';
import { createSqliteOnceStore } from './once-store.js';
import {
  type SqliteExpirySweeper,
  type SqliteExpirySweeperOptions,
  startSqliteExpirySweeper,
} from './sweeper.js';
import { createSqliteTokenVaultStorage } from './token-vault-store.js';

/** Options of {@link SqliteStores.startSweeper}: every table of the stores is swept. */
export type SqliteSweeperOptions = Omit<SqliteExpirySweeperOptions, 'tables'>;

/** Everything the SQLite backend provides, on one database: what {@link createSqliteStores} returns. */
export interface SqliteStores {
  /** The database, for the host's own tables. */
  readonly database: SqliteDatabase;
  /** oauth-core's storage; its `onceStore` is the same as {@link SqliteStores.onceStore}. */
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
  /** Whether the file answers, for a readiness probe; never throws. */
  checkReadiness(): SqliteReadiness;
  /**
   * Starts deleting expired rows of every table above in the background, on a timer that never keeps the
   * process alive: `intervalSeconds` (60), `batchSize` (1000 rows per statement), `maxBatchesPerSweep` (10),
   * `clock`, `logger`. The result's `sweepNow()` runs one bounded sweep and answers how many rows went;
   * `stop()` (before closing) waits for a sweep in progress.
   */
  startSweeper(options?: SqliteSweeperOptions): SqliteExpirySweeper;
}

/**
 * Every store of the SQLite backend on one database, each after running its migrations: oauth storage,
 * token vault, claim codes, the spend-once store and federated login, with a readiness check and one
 * sweeper for all their tables. The host closes the database itself.
 *
 * @example
 * ```ts
 * const stores = createSqliteStores(openSqliteDatabase('.keyhold/keyhold.db'));
 * const sweeper = stores.startSweeper({ intervalSeconds: 60 });
 * ```
 */
export function createSqliteStores(db: SqliteDatabase): SqliteStores {
  const oauth = createSqliteOAuthStorage(db);
  const onceStore = oauth.onceStore ?? createSqliteOnceStore(db);
  return {
    database: db,
    oauth,
    vault: createSqliteTokenVaultStorage(db),
    claims: createSqliteClaimStore(db),
    onceStore,
    users: createSqliteUserStore(db),
    loginTransactions: createSqliteLoginTransactionStore(db),
    checkReadiness: () => checkSqliteReadiness(db),
    startSweeper: (options = {}) =>
      startSqliteExpirySweeper(db, {
        ...options,
        tables: [
          ...OAUTH_SWEPT_TABLES,
          ...TOKEN_VAULT_SWEPT_TABLES,
          ...CLAIMS_SWEPT_TABLES,
          ...ONCE_SWEPT_TABLES,
        ],
      }),
  };
}
