import {
  CoreError,
  type HandlerResult,
  type RateLimiter,
  type RateLimitOutcome,
  type RateLimitRule,
} from '@keyhold/core';
import { jsonResult, NO_STORE_HEADERS } from './results.js';

/**
 * What {@link consumeRateLimit} counts: a rule applied to one key.
 */
export interface RateLimitHit extends RateLimitRule {
  /** The counter's name without the window; callers namespace it (`<package>:<rule>:<kind>:<value>`). */
  key: string;
}

/**
 * Throws `CoreError('ERR_INVALID_OPTIONS')` unless `rule` has a positive integer `limit` and
 * `windowSeconds`; `name` prefixes the message (`rateLimits.token`). For option validation at creation.
 *
 * @example
 * ```ts
 * assertRateLimitRule('rateLimits.register', options.rateLimits.register);
 * ```
 */
export function assertRateLimitRule(name: string, rule: RateLimitRule): void {
  if (!Number.isSafeInteger(rule.limit) || rule.limit < 1) {
    throw new CoreError('ERR_INVALID_OPTIONS', `${name}.limit must be a positive integer`);
  }
  if (!Number.isSafeInteger(rule.windowSeconds) || rule.windowSeconds < 1) {
    throw new CoreError('ERR_INVALID_OPTIONS', `${name}.windowSeconds must be a positive integer`);
  }
}

/**
 * Counts one hit against a fixed-window rule. The window is `floor(nowMs / windowMs)`: the counter's key is
 * `key` suffixed with `:<window index>` and expires at the window's end, so every instance sharing the limiter
 * agrees on windows without coordination. A fixed window lets a client send up to twice the limit across a
 * boundary; one atomic increment per hit is worth that. Outages of the limiter propagate (they throw).
 *
 * @example
 * ```ts
 * const outcome = await consumeRateLimit(limiter, { key: `oauth:register:ip:${ip}`, limit: 30, windowSeconds: 60 }, clock.now());
 * if (!outcome.ok) return rateLimitedResult(outcome.retryAfterSeconds);
 * ```
 */
export async function consumeRateLimit(
  limiter: RateLimiter,
  hit: RateLimitHit,
  nowMs: number,
): Promise<RateLimitOutcome> {
  const windowMs = hit.windowSeconds * 1000;
  const index = Math.floor(nowMs / windowMs);
  const expiresAt = (index + 1) * windowMs;
  const count = await limiter.increment(`${hit.key}:${index}`, expiresAt, nowMs);
  if (count <= hit.limit) return { ok: true, remaining: hit.limit - count };
  return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((expiresAt - nowMs) / 1000)) };
}

/**
 * The answer to a request over a limit: `429 Too Many Requests` with `Retry-After` (whole seconds), an
 * RFC 6749-shaped body `{ "error": "rate_limited", "error_description" }` and `Cache-Control: no-store`.
 * `headers` are added (CORS, for example).
 *
 * @example
 * ```ts
 * if (!outcome.ok) return rateLimitedResult(outcome.retryAfterSeconds);
 * ```
 */
export function rateLimitedResult(
  retryAfterSeconds: number,
  description = `too many requests; retry in ${retryAfterSeconds} s`,
  headers: Readonly<Record<string, string>> = {},
): HandlerResult {
  return jsonResult(
    429,
    { error: 'rate_limited', error_description: description },
    { ...NO_STORE_HEADERS, ...headers, 'retry-after': String(retryAfterSeconds) },
  );
}
