import type { Clock, HandlerRequest, Logger, RateLimiter, RateLimitRule } from '@keyhold/core';
import { assertRateLimitRule, consumeRateLimit, sha256Base64url } from '@keyhold/internal';
import { OAuthError, optionCheck } from './errors.js';

/**
 * The rate limits of the authorization server's endpoints (option `rateLimits` of
 * `createAuthorizationServer`). Every counter goes through one {@link RateLimiter}: `createMemoryRateLimiter()`
 * from `@keyhold/core` for one process, `createRedisStores(redis).rateLimiter` from `@keyhold/store-redis` for several.
 * A rule left out takes the default below, a rule without a number that number's default; `false` turns it off.
 *
 * | rule | counted per | default |
 * |---|---|---|
 * | `register` | client IP | 30 / 60 s |
 * | `authorize` | client IP | 60 / 60 s |
 * | `token` | client IP; and per client_id once a confidential client has authenticated | 600 / 60 s each |
 * | `consent` | decision (`POST /consent`) per signed-in user (`request.userId`), else client IP | 30 / 60 s |
 *
 * @example
 * ```ts
 * createAuthorizationServer({
 *   baseUrl,
 *   tenants,
 *   storage,
 *   rateLimits: { limiter: createMemoryRateLimiter(), register: { limit: 10 } },
 * });
 * ```
 */
export interface RateLimitsOptions {
  /** The counter store. */
  readonly limiter: RateLimiter;
  /** `POST /register`, per client IP. */
  readonly register?: Partial<RateLimitRule> | false;
  /** `GET /authorize`, per client IP. */
  readonly authorize?: Partial<RateLimitRule> | false;
  /** `POST /token`: one counter per client IP, and one per confidential client once it authenticated. */
  readonly token?: Partial<RateLimitRule> | false;
  /** `POST /consent` (the decision), per signed-in user (client IP when there is none). */
  readonly consent?: Partial<RateLimitRule> | false;
}

/**
 * The endpoints {@link RateLimitsOptions} can limit (the keys of {@link DEFAULT_RATE_LIMITS}; internal).
 */
export type RateLimitedEndpoint = 'register' | 'authorize' | 'token' | 'consent';

/**
 * The rule each endpoint gets when `rateLimits` is set and the rule is left out (or lacks a number), as the
 * table of {@link RateLimitsOptions} documents it (internal). Generous enough for interactive use and CI, tight
 * enough to stop bulk registration and guessing.
 */
export const DEFAULT_RATE_LIMITS: Readonly<Record<RateLimitedEndpoint, Readonly<RateLimitRule>>> =
  Object.freeze({
    register: Object.freeze({ limit: 30, windowSeconds: 60 }),
    authorize: Object.freeze({ limit: 60, windowSeconds: 60 }),
    token: Object.freeze({ limit: 600, windowSeconds: 60 }),
    consent: Object.freeze({ limit: 30, windowSeconds: 60 }),
  });

/**
 * Thrown inside the server when a request is over a limit; the endpoint boundary answers `429` with
 * `Retry-After` (JSON `rate_limited` or the HTML error page). Internal: callers see the response only.
 */
export class RateLimitedError extends OAuthError {
  /** Whole seconds until the window ends (at least 1). */
  readonly retryAfterSeconds: number;

  constructor(description: string, retryAfterSeconds: number) {
    super('rate_limited', description, { status: 429 });
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Checks the endpoint's rules for one request; throws {@link RateLimitedError} when one is exceeded. */
export type RateLimitCheck = (
  endpoint: RateLimitedEndpoint,
  request: HandlerRequest,
  tenantSlug: string,
) => Promise<void>;

/** The bucket of requests without a client address (an adapter that does not set `request.ip`). */
const UNKNOWN_IP = 'unknown';

// Keys carry client-chosen values (client ids up to 2 KB, tenant slugs from the URL): long or odd ones are
// hashed so a key stays short and printable in any store.
function keyPart(value: string): string {
  return value.length <= 128 && /^[\x21-\x7e]+$/.test(value) ? value : `h.${sha256Base64url(value)}`;
}

function resolveRule(
  name: RateLimitedEndpoint,
  rule: Partial<RateLimitRule> | false | undefined,
): RateLimitRule | undefined {
  if (rule === false) return undefined;
  if (rule !== undefined && (typeof rule !== 'object' || rule === null)) {
    throw optionCheck.invalid(`rateLimits.${name} must be an object or false`);
  }
  const resolved = { ...DEFAULT_RATE_LIMITS[name], ...(rule ?? {}) };
  try {
    assertRateLimitRule(`rateLimits.${name}`, resolved);
  } catch (error) {
    throw optionCheck.invalid((error as Error).message);
  }
  return { limit: resolved.limit, windowSeconds: resolved.windowSeconds };
}

/**
 * Validates `rateLimits` at creation and returns the per-request check, or `undefined` when rate limiting is
 * off (the library default).
 */
export function createRateLimitCheck(
  options: RateLimitsOptions | undefined,
  clock: Clock,
  logger: Logger,
): RateLimitCheck | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null) {
    throw optionCheck.invalid('rateLimits must be an object');
  }
  const limiter = options.limiter;
  if (typeof limiter?.increment !== 'function' || typeof limiter.reset !== 'function') {
    throw optionCheck.invalid('rateLimits.limiter must be a RateLimiter');
  }
  const rules: Partial<Record<RateLimitedEndpoint, RateLimitRule>> = {};
  for (const name of ['register', 'authorize', 'token', 'consent'] as const) {
    const rule = resolveRule(name, options[name]);
    if (rule !== undefined) rules[name] = rule;
  }

  return async (endpoint, request, tenantSlug) => {
    const name = endpoint;
    const rule = rules[name];
    if (rule === undefined) return;
    const ip = keyPart(request.ip ?? UNKNOWN_IP);
    const keys: { key: string; what: string; reason: 'per_address' | 'per_user' }[] = [];
    if (name === 'token') {
      // Per address here; per client only once the client has authenticated (authenticatedClientCheck):
      // client ids are public, so a counter spent before authentication would let anyone lock a client out.
      keys.push({ key: `oauth:token:ip:${ip}`, what: 'from this address', reason: 'per_address' });
    } else if (name === 'consent' && request.userId !== undefined) {
      keys.push({
        key: `oauth:consent:user:${keyPart(request.userId)}`,
        what: 'for this user',
        reason: 'per_user',
      });
    } else {
      keys.push({ key: `oauth:${name}:ip:${ip}`, what: 'from this address', reason: 'per_address' });
    }
    const now = clock.now();
    for (const { key, what, reason } of keys) {
      const outcome = await consumeRateLimit(limiter, { key, ...rule }, now);
      if (outcome.ok) continue;
      logger.warn(
        {
          event: 'rate_limited',
          reason,
          endpoint: name,
          tenant: tenantSlug,
          retryAfterSeconds: outcome.retryAfterSeconds,
        },
        `${name} rate limit exceeded`,
      );
      throw new RateLimitedError(
        `too many ${name} requests ${what}; retry in ${outcome.retryAfterSeconds} s`,
        outcome.retryAfterSeconds,
      );
    }
  };
}

/** Charges one token request of a client that has just authenticated with its secret. */
export type AuthenticatedClientCheck = (tenantSlug: string, clientId: string) => Promise<void>;

/**
 * The `/token` rule per client, charged after the client proved its secret (so nobody else can spend its
 * budget); `undefined` when the token rule is off. Public clients prove nothing and are limited per address only.
 */
export function createAuthenticatedClientCheck(
  options: RateLimitsOptions | undefined,
  clock: Clock,
  logger: Logger,
): AuthenticatedClientCheck | undefined {
  if (options === undefined) return undefined;
  const rule = resolveRule('token', options.token);
  if (rule === undefined) return undefined;
  return async (tenantSlug, clientId) => {
    const outcome = await consumeRateLimit(
      options.limiter,
      { key: `oauth:token:client:${keyPart(tenantSlug)}:${keyPart(clientId)}`, ...rule },
      clock.now(),
    );
    if (outcome.ok) return;
    logger.warn(
      {
        event: 'rate_limited',
        reason: 'per_client',
        endpoint: 'token',
        tenant: tenantSlug,
        retryAfterSeconds: outcome.retryAfterSeconds,
      },
      'token rate limit exceeded',
    );
    throw new RateLimitedError(
      `too many token requests for this client; retry in ${outcome.retryAfterSeconds} s`,
      outcome.retryAfterSeconds,
    );
  };
}
