import { type Clock, optionValidators, systemClock } from '@keyhold/core';
import { KeyholdMcpError } from './errors.js';

const check = optionValidators(KeyholdMcpError);

/**
 * Remembers which `requestState` values (by their random id) were already used, so a 2026-07-28 retry
 * cannot be replayed. Instances serving one deployment must share it (a SQL table, Redis): a state spent
 * on one instance must be refused by every other.
 *
 * @example
 * ```ts
 * const first = await store.consume('jti-1', Date.now() + 600_000); // true
 * const again = await store.consume('jti-1', Date.now() + 600_000); // false
 * ```
 */
export interface RequestStateStore {
  /**
   * Marks `id` used and answers `true` the first time, `false` ever after (until `expiresAt`, epoch ms,
   * after which the state is refused as expired anyway and the record may be dropped). Atomic: under any
   * concurrency exactly one caller gets `true`.
   */
  consume(id: string, expiresAt: number): Promise<boolean>;
}

/**
 * Options of {@link createMemoryRequestStateStore}.
 */
export interface MemoryRequestStateStoreOptions {
  /** The time expired ids are dropped by. Default: the system clock. */
  readonly clock?: Clock;
  /**
   * Ids kept at most. When full, the entry closest to expiry is dropped first. Default 100 000.
   */
  readonly maxEntries?: number;
}

/**
 * The in-process {@link RequestStateStore}: right for one instance; several instances need a shared one.
 *
 * @example
 * ```ts
 * const endpoint = createMcpEndpoint({ ...options, requestStateStore: createMemoryRequestStateStore() });
 * ```
 */
export function createMemoryRequestStateStore(
  options: MemoryRequestStateStoreOptions = {},
): RequestStateStore {
  const clock = options.clock ?? systemClock;
  const maxEntries = check.positiveInteger('maxEntries', options.maxEntries, 100_000);
  // Insertion order is roughly expiry order (one TTL for all), so the oldest entries are dropped first.
  const used = new Map<string, number>();
  const sweep = (at: number): void => {
    for (const [id, expiresAt] of used) {
      if (expiresAt > at && used.size < maxEntries) break;
      used.delete(id);
    }
  };
  return {
    async consume(id, expiresAt) {
      const at = clock.now();
      sweep(at);
      const previous = used.get(id);
      if (previous !== undefined && previous > at) return false;
      used.set(id, expiresAt);
      return true;
    },
  };
}
