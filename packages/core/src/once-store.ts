import { CoreError } from './errors.js';

/**
 * "Spend this key once": the one store behind every single-use rule (a `private_key_jwt` assertion's `jti`,
 * an MCP `requestState` id, a webhook delivery). Instances serving one deployment share one (a SQL table,
 * Redis), so a key spent on one instance is refused by every other. Keyhold's callers namespace their keys
 * (`assertion:…`, `state:…`, `webhook:…`), and no key is longer than 200 characters (a longer id is hashed). A store
 * that cannot answer throws `StorageUnavailableError`: the caller then refuses (fails closed), never lets a
 * key through twice.
 *
 * Implementations: {@link createMemoryOnceStore} in one process; `createSqliteStores`,
 * `createPostgresStores` and `createRedisStores` return a shared one. Each passes
 * `describeOnceStoreConformance` of `@keyhold/core/testing`.
 *
 * @example
 * ```ts
 * const store: OnceStore = createMemoryOnceStore();
 * const now = Date.now();
 * const first = await store.consume('state:abc', now + 600_000, now); // true
 * const again = await store.consume('state:abc', now + 600_000, now); // false
 * ```
 */
export interface OnceStore {
  /**
   * Records `key` until `expiresAt` (epoch ms) and answers `true`, or answers `false` while a record of it
   * with an `expiresAt` after `now` exists. A record at or past its `expiresAt` counts as absent and is
   * replaced. Atomic: of any number of concurrent callers with one key, on any instance, exactly one gets
   * `true`. `now` is the caller's clock: a store reads none of its own.
   */
  consume(key: string, expiresAt: number, now: number): Promise<boolean>;
  /**
   * Forgets `key`, so the next `consume` of it answers `true` again: for a caller that spent a key on work
   * that then failed and must be retried (a webhook delivery whose method threw). Unknown keys are ignored.
   */
  release(key: string): Promise<void>;
}

/** Options of {@link createMemoryOnceStore}. */
export interface MemoryOnceStoreOptions {
  /**
   * Records kept at most (default 100 000). When full, expired records go first, then the oldest: a
   * dropped record's key could be spent again, so keep this above what one expiry window brings.
   */
  readonly maxEntries?: number;
}

/** Expired records are swept at most once per this many calls, so a consume stays O(1) on average. */
const SWEEP_EVERY_CALLS = 1_000;

/**
 * The {@link OnceStore} in this process's memory: right for one instance and for tests; several instances
 * need a shared one. Bounded by `maxEntries`; time is only the `now` callers pass, so an injected clock
 * drives it.
 *
 * @example
 * ```ts
 * const onceStore = createMemoryOnceStore({ maxEntries: 10_000 });
 * ```
 */
export function createMemoryOnceStore(options: MemoryOnceStoreOptions = {}): OnceStore {
  const maxEntries = options.maxEntries ?? 100_000;
  if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) {
    throw new CoreError('ERR_INVALID_OPTIONS', 'maxEntries must be a positive integer');
  }
  // Map iteration order is insertion order, so the first records are the oldest.
  const records = new Map<string, number>();
  let callsSinceSweep = 0;
  const sweep = (now: number): void => {
    for (const [key, expiresAt] of records) if (expiresAt <= now) records.delete(key);
  };
  return {
    // Each method runs synchronously up to its return, so two callers never interleave between the check
    // and the write: that is what makes `consume` atomic here.
    async consume(key, expiresAt, now) {
      if (++callsSinceSweep >= SWEEP_EVERY_CALLS) {
        callsSinceSweep = 0;
        sweep(now);
      }
      const existing = records.get(key);
      if (existing !== undefined && existing > now) return false;
      records.delete(key);
      if (records.size >= maxEntries) {
        sweep(now);
        for (const oldest of records.keys()) {
          if (records.size < maxEntries) break;
          records.delete(oldest);
        }
      }
      records.set(key, expiresAt);
      return true;
    },
    async release(key) {
      records.delete(key);
    },
  };
}
