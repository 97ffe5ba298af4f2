import { describe, expect, it } from 'vitest';
import type { ReplayCache } from './storage.js';

/**
 * The conformance suite every {@link ReplayCache} implementation runs. It uses only the interface, and a
 * fresh cache from `makeCache` for every test.
 *
 * @example
 * ```ts
 * import { describeReplayCacheConformance } from '@keyhold/webhook-kit/testing';
 * describeReplayCacheConformance('redis', async () => createRedisReplayCache({ client, prefix: randomPrefix() }));
 * ```
 */
export function describeReplayCacheConformance(
  name: string,
  makeCache: () => ReplayCache | Promise<ReplayCache>,
): void {
  const now = Date.parse('2026-01-01T00:00:00Z');

  describe(`ReplayCache conformance: ${name}`, () => {
    it('grants the first claim of a key', async () => {
      const cache = await makeCache();
      expect(await cache.claim('k1', now + 60_000, now)).toBe(true);
    });

    it('refuses a second claim of a key while its record is unexpired', async () => {
      const cache = await makeCache();
      await cache.claim('k1', now + 60_000, now);
      expect(await cache.claim('k1', now + 60_000, now + 59_999)).toBe(false);
    });

    it('keeps keys apart', async () => {
      const cache = await makeCache();
      await cache.claim('k1', now + 60_000, now);
      expect(await cache.claim('k2', now + 60_000, now)).toBe(true);
    });

    it('treats a record whose expiresAt is at or before now as absent', async () => {
      const cache = await makeCache();
      await cache.claim('k1', now + 60_000, now);
      expect(await cache.claim('k1', now + 120_000, now + 60_000)).toBe(true);
      expect(await cache.claim('k1', now + 120_000, now + 60_001)).toBe(false);
    });

    it('grants a claim again after release', async () => {
      const cache = await makeCache();
      await cache.claim('k1', now + 60_000, now);
      await cache.release('k1');
      expect(await cache.claim('k1', now + 60_000, now)).toBe(true);
    });

    it('releases an unknown key without error', async () => {
      const cache = await makeCache();
      await expect(cache.release('never-claimed')).resolves.toBeUndefined();
    });

    it('gives exactly one of many concurrent claims of one key', async () => {
      const cache = await makeCache();
      const results = await Promise.all(
        Array.from({ length: 20 }, () => cache.claim('contended', now + 60_000, now)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
    });
  });
}
