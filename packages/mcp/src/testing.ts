// `@keyhold/mcp/testing`: the conformance suite every RequestStateStore passes.
import { describe, expect, it } from 'vitest';
import type { RequestStateStore } from './storage.js';

/**
 * Options of {@link describeRequestStateStoreConformance}.
 *
 * @example
 * ```ts
 * const options: RequestStateStoreConformanceOptions = { name: 'memory', create: () => createMemoryRequestStateStore() };
 * ```
 */
export interface RequestStateStoreConformanceOptions {
  readonly name: string;
  /** A fresh, empty store. */
  readonly create: () => RequestStateStore | Promise<RequestStateStore>;
}

/**
 * Registers vitest tests that a {@link RequestStateStore} must pass: single use, atomic under concurrency,
 * ids independent of each other.
 *
 * @example
 * ```ts
 * describeRequestStateStoreConformance({ name: 'memory', create: () => createMemoryRequestStateStore() });
 * ```
 */
export function describeRequestStateStoreConformance(options: RequestStateStoreConformanceOptions): void {
  const later = (): number => Date.now() + 10 * 60_000;
  describe(`RequestStateStore conformance: ${options.name}`, () => {
    it('answers true the first time an id is consumed and false after', async () => {
      const store = await options.create();
      expect(await store.consume('state-a', later())).toBe(true);
      expect(await store.consume('state-a', later())).toBe(false);
    });

    it('keeps ids apart', async () => {
      const store = await options.create();
      expect(await store.consume('state-b1', later())).toBe(true);
      expect(await store.consume('state-b2', later())).toBe(true);
    });

    it('lets exactly one of fifty concurrent consumers win', async () => {
      const store = await options.create();
      const results = await Promise.all(Array.from({ length: 50 }, () => store.consume('state-c', later())));
      expect(results.filter(Boolean)).toHaveLength(1);
    });
  });
}
