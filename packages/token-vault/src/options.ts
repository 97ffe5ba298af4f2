import type { Clock, Logger, RequestTracing } from '@keyhold/core';
import { silentLogger, systemClock } from '@keyhold/core';
import { TokenVaultError } from './errors.js';
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
  /** Lease of the cross-process refresh lock (default 30 000); longer than any token request. */
  refreshLockTtlMs?: number;
  /** How often a process waiting for another's refresh re-reads the grant (default 50). */
  refreshPollIntervalMs?: number;
  /** Called after each successful callback (for hosts that tell a client, or another instance, about it). */
  onAuthorizationComplete?: (event: AuthorizationCompleteEvent) => void | Promise<void>;
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
  readonly refreshLockTtlMs: number;
  readonly refreshPollIntervalMs: number;
  readonly onAuthorizationComplete?: (event: AuthorizationCompleteEvent) => void | Promise<void>;
  readonly fetch: typeof fetch;
  readonly clock: Clock;
  readonly logger: Logger;
}

function invalid(message: string): TokenVaultError {
  return new TokenVaultError('ERR_INVALID_OPTIONS', message);
}

function absoluteUrl(
  name: string,
  value: string | undefined,
  baseUrl: string | undefined,
  path: string,
): string {
  const raw = value ?? (baseUrl === undefined ? undefined : `${baseUrl.replace(/\/+$/, '')}${path}`);
  if (raw === undefined) throw invalid(`${name} is required when baseUrl is not given`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(`${name} must be an absolute URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid(`${name} must be an http(s) URL`);
  if (url.hash !== '') throw invalid(`${name} must not have a fragment`);
  return url.href;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  const result = value ?? fallback;
  if (!Number.isFinite(result) || result <= 0) throw invalid(`${name} must be a positive number`);
  return result;
}

/** Validates broker options once, at creation; throws `ERR_INVALID_OPTIONS`. */
export function resolveBrokerOptions(options: TokenBrokerOptions): ResolvedBrokerOptions {
  if (options.vault === undefined || options.storage === undefined)
    throw invalid('vault and storage are required');
  const providers = new Map<string, Provider>();
  for (const registration of options.providers ?? []) {
    const provider = resolveProvider(registration);
    if (providers.has(provider.id)) throw invalid(`provider ${provider.id} is registered twice`);
    providers.set(provider.id, provider);
  }
  const fetchImpl = options.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== 'function') throw invalid('no fetch available; pass options.fetch');
  const refreshBufferSeconds = options.refreshBufferSeconds ?? 300;
  if (!Number.isFinite(refreshBufferSeconds) || refreshBufferSeconds < 0) {
    throw invalid('refreshBufferSeconds must be a number of seconds, at least 0');
  }
  return {
    connectUrl: absoluteUrl('connectUrl', options.connectUrl, options.baseUrl, '/auth/oauth/connect'),
    callbackUrl: absoluteUrl('callbackUrl', options.callbackUrl, options.baseUrl, '/auth/oauth/callback'),
    vault: options.vault,
    storage: options.storage,
    providers,
    refreshBufferMs: refreshBufferSeconds * 1000,
    elicitationTtlMs: positive('elicitationTtlSeconds', options.elicitationTtlSeconds, 600) * 1000,
    tokenRequestTimeoutMs: positive('tokenRequestTimeoutMs', options.tokenRequestTimeoutMs, 10_000),
    refreshLockTtlMs: positive('refreshLockTtlMs', options.refreshLockTtlMs, 30_000),
    refreshPollIntervalMs: positive('refreshPollIntervalMs', options.refreshPollIntervalMs, 50),
    ...(options.onAuthorizationComplete === undefined
      ? {}
      : { onAuthorizationComplete: options.onAuthorizationComplete }),
    fetch: fetchImpl,
    clock: options.clock ?? systemClock,
    logger: options.logger ?? silentLogger,
  };
}
