import type { OptionValidators } from '@keyhold/internal';

/**
 * A table whose rows carry an expiry column (epoch ms) and may be deleted once it has passed. Rows whose
 * column is NULL never expire.
 */
export interface SweptTable {
  readonly table: string;
  /** Default `expires_at`. */
  readonly expiresAtColumn?: string;
}

/**
 * Options of both stores' sweepers (`startSqliteExpirySweeper`, `startPostgresExpirySweeper`): the same
 * shape in SQLite and PostgreSQL. A host meets them, without `tables`, in `startSweeper` of a store's
 * `createSqliteStores` / `createPostgresStores` result; they have no exported name.
 */
export interface ExpirySweeperOptions {
  /** Tables to prune (a plain string is a table with an `expires_at` column). */
  readonly tables: readonly (SweptTable | string)[];
  /** Seconds between sweeps (default 60). */
  readonly intervalSeconds?: number;
  /** @deprecated Use `intervalSeconds`; kept for the PostgreSQL store's first release. */
  readonly intervalMs?: number;
  /** Rows deleted per table per statement, so a sweep never holds long locks (default 1000). */
  readonly batchSize?: number;
  /** Statements per table per sweep (default 10): a sweep is bounded in work and time. */
  readonly maxBatchesPerSweep?: number;
  /** Default: the system clock (`Date.now`). */
  readonly clock?: { now(): number };
  /** Where a failed background sweep is reported (it retries on the next tick). Default: silent. */
  readonly logger?: { warn(object: Record<string, unknown>, message: string): void };
}

/**
 * A running sweeper: deletes expired rows on a timer that never keeps the process alive.
 *
 * @example
 * ```ts
 * const sweeper = startSqliteExpirySweeper(db, { tables: OAUTH_SQLITE_SWEPT_TABLES });
 * await sweeper.sweepNow(); // e.g. from a maintenance command
 * await sweeper.stop();
 * ```
 */
export interface ExpirySweeper {
  /** Runs one bounded sweep now (or joins the one running) and answers how many rows it deleted. */
  sweepNow(): Promise<number>;
  /** @deprecated The same as {@link ExpirySweeper.sweepNow}. */
  sweepOnce(): Promise<number>;
  /** Stops the timer and waits for a sweep in progress. */
  stop(): Promise<void>;
}

/**
 * Deletes at most `limit` rows of `table` whose `column` is below `now`, and answers how many went. The
 * names are checked plain identifiers.
 */
export type DeleteExpiredBatch = (
  table: string,
  column: string,
  now: number,
  limit: number,
) => number | Promise<number>;

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** A validated sweep plan: the tables with their columns, and the bounds of one sweep. */
export interface ExpirySweepPlan {
  readonly tables: readonly { readonly table: string; readonly column: string }[];
  readonly batchSize: number;
  readonly maxBatchesPerSweep: number;
  readonly intervalMs: number;
}

/**
 * Validates sweeper options (plain identifiers only, positive bounds) and fills in the defaults, with the
 * store's own option checks, so each store raises its own error class (`ERR_INVALID_OPTIONS`).
 *
 * @example
 * ```ts
 * import { optionValidators } from '@keyhold/internal';
 * const plan = planExpirySweep(options, optionValidators(SqliteStoreError));
 * ```
 */
export function planExpirySweep(options: ExpirySweeperOptions, check: OptionValidators): ExpirySweepPlan {
  if (!Array.isArray(options?.tables)) throw check.invalid('tables must be a list of tables');
  const tables = options.tables.map((entry) => {
    const table = typeof entry === 'string' ? entry : entry.table;
    const column = (typeof entry === 'string' ? undefined : entry.expiresAtColumn) ?? 'expires_at';
    if (!IDENTIFIER.test(table) || !IDENTIFIER.test(column)) {
      throw check.invalid(`not a plain SQL identifier: ${table}.${column}`);
    }
    return { table, column };
  });
  const intervalMs =
    options.intervalMs !== undefined && options.intervalSeconds === undefined
      ? check.positiveInteger('intervalMs', options.intervalMs, 60_000)
      : check.positiveInteger('intervalSeconds', options.intervalSeconds, 60) * 1000;
  return {
    tables,
    batchSize: check.positiveInteger('batchSize', options.batchSize, 1000),
    maxBatchesPerSweep: check.positiveInteger('maxBatchesPerSweep', options.maxBatchesPerSweep, 10),
    intervalMs,
  };
}

/**
 * The timer, the bounded batches and the one-sweep-at-a-time rule both stores share; a store supplies
 * only the statement that deletes one batch.
 *
 * @example
 * ```ts
 * return runExpirySweeper(plan, options, (table, column, now, limit) =>
 *   db.prepare(`DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE ${column} < ? LIMIT ?)`).run(now, limit).changes);
 * ```
 */
export function runExpirySweeper(
  plan: ExpirySweepPlan,
  options: Pick<ExpirySweeperOptions, 'clock' | 'logger'>,
  deleteBatch: DeleteExpiredBatch,
): ExpirySweeper {
  const now = (): number => (options.clock ? options.clock.now() : Date.now());
  let running: Promise<number> | undefined;
  const sweepNow = (): Promise<number> => {
    running ??= (async () => {
      let deleted = 0;
      for (const { table, column } of plan.tables) {
        for (let batch = 0; batch < plan.maxBatchesPerSweep; batch++) {
          const count = await deleteBatch(table, column, now(), plan.batchSize);
          deleted += count;
          if (count < plan.batchSize) break;
        }
      }
      return deleted;
    })().finally(() => {
      running = undefined;
    });
    return running;
  };
  const timer = setInterval(() => {
    sweepNow().catch((error: unknown) =>
      options.logger?.warn({ err: error }, 'expiry sweep failed; will retry'),
    );
  }, plan.intervalMs);
  timer.unref?.();
  return {
    sweepNow,
    sweepOnce: sweepNow,
    stop: async () => {
      clearInterval(timer);
      await running?.catch(() => {});
    },
  };
}
