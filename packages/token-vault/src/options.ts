import type { Clock, Logger, RequestTracing } from '@keyhold/core';
import { silentLogger, systemClock } from '@keyhold/core';
import { optionValidators } from '@keyhold/internal';
import { TokenVaultError } from './errors.js';
import type { BrokerEvent, BrokerEventSink } from './events.js';
import { createBrokerEventSink } from './events.js';
import type { Provider, ProviderRegistration } from './providers.js';
import { resolveProvider } from './providers.js';
import type { TokenVaultStorage } from './storage.js';
import type { Vault } from './vault/vault.js';

/** Reported after a callback stored a grant; for hosts that route the completion to another instance. */
export interface AuthorizationCompleteEvent {
  readonly elicitationId: string;
  readonly tenantId: string;
  readonly userId: string;
  readonly toolModuleId: string;
  readonly provider: string;
  readonly scopes: readonly string[];
}

/** Options of `createTokenBroker`. */
export interface TokenBrokerOptions {
  /**
   * Spans for the connect and callback steps (`createOpenTelemetryTracing({ spanPrefix: 'keyhold.broker.' })`
   * of `@keyhold/oauth-core/opentelemetry`). Default: none.
   */
  tracing?: RequestTracing;
  /** The host's public base URL; `connectUrl` and `callbackUrl` default to paths under it. */
  baseUrl?: string;
  /** Absolute URL of the host's connect route (default `${baseUrl}/auth/oauth/connect`). */
  connectUrl?: string;
  /** The redirect_uri registered at every provider (default `${baseUrl}/auth/oauth/callback`). */
  callbackUrl?: string;
  /**
   * Ignored. The state sent to providers used to be signed with this key; it is now an opaque random value
   * referring to a record stored server-side, so no key is needed.
   *
   * @deprecated Accepted so existing configurations keep working; remove it from your options.
   */
  stateSecret?: string | Uint8Array;
  vault: Vault;
  storage: TokenVaultStorage;
  /** Built-in templates (`{ id: 'github', clientId, clientSecret }`) and custom providers. */
  providers: readonly ProviderRegistration[];
  /** Time before expiry at which a token is refreshed instead of returned (default 300: five minutes). */
  refreshBufferSeconds?: number;
  /** How long an elicitation link stays usable (default 600). */
  elicitationTtlSeconds?: number;
  /** Timeout of each request to a provider's token endpoint (default 10 000). */
  tokenRequestTimeoutMs?: number;
  /**
   * The most bytes of a token endpoint answer read (default 65 536). The time limit above covers the headers
   * and the whole body; a longer answer is cut off and counts as the provider being unavailable.
   */
  maxResponseBytes?: number;
  /**
   * The most UTF-8 bytes of an `access_token` or `refresh_token` (default 16 384). An answer with a longer
   * token is refused as a provider error and nothing is stored.
   */
  maxTokenBytes?: number;
  /**
   * The most live pending authorizations one user (in a tenant) holds at once, counted separately for
   * elicitations (one per tool call without a grant) and connect rows (one per opened connect link)
   * (default 20). One more replaces the user's oldest, so a client that loops cannot grow the store without
   * bound and the user's newest links keep working.
   */
  maxPendingPerUser?: number;
  /** Lease of the cross-process refresh lock (default 30 000); longer than any token request. */
  refreshLockTtlMs?: number;
  /** How often a process waiting for another's refresh re-reads the grant (default 50). */
  refreshPollIntervalMs?: number;
  /** Called after each successful callback (for hosts that tell a client, or another instance, about it). */
  onAuthorizationComplete?: (event: AuthorizationCompleteEvent) => void | Promise<void>;
  /**
   * The brokered logins' decision timeline: each link issued, login completed or refused, refresh and
   * revocation calls `onEvent` once with a {@link BrokerEvent} (reason codes: README "Events and reason
   * codes v1"), never awaited; a throw or rejection is logged and changes nothing. The field names are
   * `@keyhold/oauth-core`'s `AuthEvent`'s, so a host may append these to that server's timeline. Ids only:
   * never a token, the provider's code or the state. Default: none.
   *
   * @example
   * ```ts
   * createTokenBroker({ ...options, events: { onEvent: (event) => audit.write(event) } });
   * ```
   */
  events?: { readonly onEvent?: (event: BrokerEvent) => void | PromiseLike<void> };
  /** Used for every request to a provider (default the global `fetch`). */
  fetch?: typeof fetch;
  clock?: Clock;
  logger?: Logger;
}

/** Options after validation, with every default applied. */
export interface ResolvedBrokerOptions {
  readonly connectUrl: string;
  readonly callbackUrl: string;
  readonly vault: Vault;
  readonly storage: TokenVaultStorage;
  readonly providers: ReadonlyMap<string, Provider>;
  readonly refreshBufferMs: number;
  readonly elicitationTtlMs: number;
  readonly tokenRequestTimeoutMs: number;
  readonly maxResponseBytes: number;
  readonly maxTokenBytes: number;
  readonly maxPendingPerUser: number;
  readonly refreshLockTtlMs: number;
  readonly refreshPollIntervalMs: number;
  readonly onAuthorizationComplete?: (event: AuthorizationCompleteEvent) => void | Promise<void>;
  readonly events: BrokerEventSink;
  readonly fetch: typeof fetch;
  readonly clock: Clock;
  readonly logger: Logger;
}

const check = optionValidators(TokenVaultError);

/** `value`, or `path` under `baseUrl`, as an absolute http(s) URL. */
function brokerUrl(
  name: string,
  value: string | undefined,
  baseUrl: string | undefined,
  path: string,
): string {
  const raw = value ?? (baseUrl === undefined ? undefined : `${baseUrl.replace(/\/+$/, '')}${path}`);
  if (raw === undefined) throw check.invalid(`${name} is required when baseUrl is not given`);
  return check.absoluteUrl(name, raw).href;
}

// The vault and the stores are first called while a request is served: their shape is checked here so a
// wiring mistake fails at start-up, not on a user's first ask.
function assertVault(vault: Vault | undefined): void {
  const methods = ['encrypt', 'decrypt', 'rewrap'] as const;
  if (methods.some((method) => typeof vault?.[method] !== 'function')) {
    throw check.invalid('vault is required: createLocalVault or createKmsVault');
  }
}

function assertStorage(storage: TokenVaultStorage | undefined): void {
  if (
    typeof storage?.grants?.get !== 'function' ||
    typeof storage.pending?.consumeAuthorization !== 'function' ||
    typeof storage.refreshLock?.acquire !== 'function'
  ) {
    throw check.invalid('storage is required: grants, pending and refreshLock (createMemoryBrokerStorage)');
  }
}

/** Validates broker options once, at creation; throws `ERR_INVALID_OPTIONS`. */
export function resolveBrokerOptions(options: TokenBrokerOptions): ResolvedBrokerOptions {
  assertVault(options.vault);
  assertStorage(options.storage);
  if (
    options.onAuthorizationComplete !== undefined &&
    typeof options.onAuthorizationComplete !== 'function'
  ) {
    throw check.invalid('onAuthorizationComplete must be a function');
  }
  const events = options.events ?? {};
  if (typeof events !== 'object' || events === null) throw check.invalid('events must be an object');
  if (events.onEvent !== undefined && typeof events.onEvent !== 'function') {
    throw check.invalid('events.onEvent must be a function');
  }
  const providers = new Map<string, Provider>();
  for (const registration of options.providers ?? []) {
    const provider = resolveProvider(registration);
    if (providers.has(provider.id)) throw check.invalid(`provider ${provider.id} is registered twice`);
    providers.set(provider.id, provider);
  }
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  if (typeof fetchImpl !== 'function') throw check.invalid('no fetch available; pass options.fetch');
  const refreshBufferSeconds = check.integerInRange(
    'refreshBufferSeconds',
    options.refreshBufferSeconds,
    300,
    {
      min: 0,
    },
  );
  return {
    connectUrl: brokerUrl('connectUrl', options.connectUrl, options.baseUrl, '/auth/oauth/connect'),
    callbackUrl: brokerUrl('callbackUrl', options.callbackUrl, options.baseUrl, '/auth/oauth/callback'),
    vault: options.vault,
    storage: options.storage,
    providers,
    refreshBufferMs: refreshBufferSeconds * 1000,
    elicitationTtlMs:
      check.positiveInteger('elicitationTtlSeconds', options.elicitationTtlSeconds, 600) * 1000,
    tokenRequestTimeoutMs: check.positiveInteger(
      'tokenRequestTimeoutMs',
      options.tokenRequestTimeoutMs,
      10_000,
    ),
    maxResponseBytes: check.positiveInteger('maxResponseBytes', options.maxResponseBytes, 65_536),
    maxTokenBytes: check.positiveInteger('maxTokenBytes', options.maxTokenBytes, 16_384),
    maxPendingPerUser: check.positiveInteger('maxPendingPerUser', options.maxPendingPerUser, 20),
    refreshLockTtlMs: check.positiveInteger('refreshLockTtlMs', options.refreshLockTtlMs, 30_000),
    refreshPollIntervalMs: check.positiveInteger('refreshPollIntervalMs', options.refreshPollIntervalMs, 50),
    ...(options.onAuthorizationComplete === undefined
      ? {}
      : { onAuthorizationComplete: options.onAuthorizationComplete }),
    events: createBrokerEventSink({
      ...(events.onEvent === undefined ? {} : { onEvent: events.onEvent }),
      now: () => clock.now(),
      logger,
    }),
    fetch: fetchImpl,
    clock,
    logger,
  };
}
