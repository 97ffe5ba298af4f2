import type { Clock, Logger } from '@keyhold/core';
import { silentLogger, systemClock } from '@keyhold/core';
import type { PostgresPool } from './database.js';
import { PostgresStoreError } from './errors.js';

/** A table with an `expires_at` column (epoch ms, BIGINT) whose expired rows may be deleted. */
export interface SweptTable {
  readonly table: string;
  readonly expiresAtColumn?: string;
}

/** Options of {@link startExpirySweeper}. */
export interface ExpirySweeperOptions {
  readonly tables: readonly SweptTable[];
  /** Time between sweeps (default 60 000 ms). */
  readonly intervalMs?: number;
  /** Rows deleted per table per statement, so a sweep never holds long locks (default 1000). */
  readonly batchSize?: number;
  /** Statements per table per sweep (default 10): a sweep is bounded in work and time. */
  readonly maxBatchesPerSweep?: number;
  readonly clock?: Clock;
  readonly logger?: Logger;
}

/** A running sweeper. */
export interface ExpirySweeper {
  /** Runs one bounded sweep now and returns how many rows it deleted. */
  sweepOnce(): Promise<number>;
  /** Stops the timer and waits for a sweep in progress. */
  stop(): Promise<void>;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/**
 * Deletes expired rows in bounded batches on a timer that never keeps the process alive. Lookups never
 * depend on it: every store checks `expires_at` on read; the sweeper only reclaims space.
 *
 * @example
 * ```ts
 * const sweeper = startExpirySweeper(pool, { tables: [{ table: 'keyhold_oauth_codes' }] });
 * await sweeper.stop();
 * ```
 */
export function startExpirySweeper(pool: PostgresPool, options: ExpirySweeperOptions): ExpirySweeper {
  const batchSize = options.batchSize ?? 1000;
  const maxBatches = options.maxBatchesPerSweep ?? 10;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  for (const { table, expiresAtColumn = 'expires_at' } of options.tables) {
    if (!IDENTIFIER.test(table) || !IDENTIFIER.test(expiresAtColumn)) {
      throw new PostgresStoreError(
        'ERR_INVALID_OPTIONS',
        `not a plain SQL identifier: ${table}.${expiresAtColumn}`,
      );
    }
  }
  let running: Promise<number> | undefined;
  const sweepOnce = (): Promise<number> => {
    running ??= (async () => {
      let deleted = 0;
      for (const { table, expiresAtColumn = 'expires_at' } of options.tables) {
        for (let batch = 0; batch < maxBatches; batch++) {
          const result = await pool.query(
            `DELETE FROM ${table} WHERE ctid IN (SELECT ctid FROM ${table} WHERE ${expiresAtColumn} < $1 LIMIT $2)`,
            [clock.now(), batchSize],
          );
          deleted += result.rowCount ?? 0;
          if ((result.rowCount ?? 0) < batchSize) break;
        }
      }
      return deleted;
    })().finally(() => {
      running = undefined;
    });
    return running;
  };
  const timer = setInterval(() => {
    sweepOnce().catch((error: unknown) => logger.warn({ err: error }, 'expiry sweep failed; will retry'));
  }, options.intervalMs ?? 60_000);
  timer.unref();
  return {
    sweepOnce,
    stop: async () => {
      clearInterval(timer);
      await running?.catch(() => {});
    },
  };
}
