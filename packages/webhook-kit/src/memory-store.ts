import { check } from './option-checks.js';
import type { ReplayCache } from './storage.js';

/** Options of {@link createMemoryReplayCache}. */
export interface MemoryReplayCacheOptions {
  /**
   * Most records kept at once (default 100 000). Past it the record inserted first is dropped; the
   * timestamp tolerance of the signature check still refuses replays of old Standard Webhooks and Stripe
   * messages. GitHub deliveries carry no timestamp, so keep this above the GitHub deliveries one
   * `dedupeTtlSeconds` window brings.
   */
  maxEntries?: number;
}

const DEFAULT_MAX_ENTRIES = 100_000;
/** Expired records are swept at most once per this many claims, so a claim stays O(1) on average. */
const SWEEP_EVERY_CLAIMS = 1_000;

/**
 * A {@link ReplayCache} held in this process's memory: for a single instance and for tests.
 *
 * @example
 * ```ts
 * createWebhookHandler({ modules, replayCache: createMemoryReplayCache({ maxEntries: 10_000 }) });
 * ```
 */
export function createMemoryReplayCache(options: MemoryReplayCacheOptions = {}): ReplayCache {
  const maxEntries = check.positiveInteger('maxEntries', options.maxEntries, DEFAULT_MAX_ENTRIES);
  const records = new Map<string, number>();
  let claimsSinceSweep = 0;

  function sweep(now: number): void {
    for (const [key, expiresAt] of records) if (expiresAt <= now) records.delete(key);
  }

  return {
    // Each method runs synchronously up to its return, so two callers can never interleave between the
    // check and the write: that is what makes `claim` atomic here.
    async claim(key, expiresAt, now) {
      if (++claimsSinceSweep >= SWEEP_EVERY_CLAIMS) {
        claimsSinceSweep = 0;
        sweep(now);
      }
      const existing = records.get(key);
      if (existing !== undefined && existing > now) return false;
      records.delete(key);
      if (records.size >= maxEntries) {
        sweep(now);
        if (records.size >= maxEntries) {
          const oldest = records.keys().next();
          if (!oldest.done) records.delete(oldest.value);
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
