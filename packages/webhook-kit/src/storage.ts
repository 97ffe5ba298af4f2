/**
 * Remembers which signed deliveries were already accepted, so a replayed or retried delivery (the same
 * Standard Webhooks `webhook-id`, the same Stripe `t` and signature, the same GitHub signature) reaches its
 * method at most once while its record lives.
 *
 * Implementations: {@link createMemoryReplayCache} for one process; a shared store (Redis, SQL) when
 * several instances serve one deployment. Every implementation passes `describeReplayCacheConformance`
 * from `@keyhold/webhook-kit/testing`.
 *
 * @example
 * ```ts
 * const first = await cache.claim('billing/invoice:msg_1', now + 86_400_000, now); // true
 * const again = await cache.claim('billing/invoice:msg_1', now + 86_400_000, now); // false
 * ```
 */
export interface ReplayCache {
  /**
   * Records `key` until `expiresAt` (epoch ms) unless an unexpired record of it exists. Atomic: among
   * concurrent callers with one key, exactly one gets `true`. A record whose `expiresAt` is at or before
   * `now` counts as absent and is replaced.
   */
  claim(key: string, expiresAt: number, now: number): Promise<boolean>;
  /** Forgets `key`, so that a retry of a delivery whose method failed is processed again. */
  release(key: string): Promise<void>;
}
