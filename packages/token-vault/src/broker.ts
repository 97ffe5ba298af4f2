import type { FetchHandler, OAuthAsk } from '@keyhold/core';
import type { Handler } from '@keyhold/internal';
import { randomToken, readHandlerRequest, toResponse, traceHandler, userIdOf } from '@keyhold/internal';
import { parseAsk } from './ask.js';
import { ElicitationRequiredError } from './elicitation.js';
import { TokenVaultError } from './errors.js';
import { createCallbackHandler } from './handlers/callback.js';
import { createConnectHandler } from './handlers/connect.js';
import { answeringOutages } from './handlers/outage.js';
import type { TokenBrokerOptions } from './options.js';
import { resolveBrokerOptions } from './options.js';
import type { Provider } from './providers.js';
import type { RefreshOutcome } from './refresh.js';
import { grantLockKey, isFresh, refreshAcrossProcesses } from './refresh.js';
import { canonicalScopes } from './scopes.js';
import type { GrantKey } from './storage.js';

/**
 * Who is asking: the tenant, the user (`sub`) and the tool module. Nothing about the MCP connection: the
 * broker answers a token or an elicitation, and the client retries the call once the user has authorized.
 */
export interface AskContext {
  readonly tenantId: string;
  readonly userId: string;
  readonly toolModuleId: string;
  /**
   * The MCP client whose tool call asks, when known: it only labels the broker's events (`clientId`), so a
   * person's timeline says which application the login was for. Grants are not keyed by it.
   */
  readonly clientId?: string;
}

/**
 * The outcome of {@link TokenBroker.requestToken}: the access token, or the elicitation the user must
 * complete (show its link, or turn it into MCP's `-32042` with `toMCPError`) before the call is retried.
 *
 * @example
 * ```ts
 * const outcome = await broker.requestToken(ask, context);
 * if (!outcome.ok) return outcome.error.toToolResult();
 * await fetch(apiUrl, { headers: { authorization: `Bearer ${outcome.accessToken}` } });
 * ```
 */
export type TokenOutcome =
  | { readonly ok: true; readonly accessToken: string }
  | { readonly ok: false; readonly error: ElicitationRequiredError };

/** The summary of a {@link TokenBroker.rewrapGrants} pass. */
export interface RewrapSummary {
  /** Grants written again under the current key. */
  readonly rewrapped: number;
  /** Grants another writer changed during the pass (they were written with the current key anyway). */
  readonly skipped: number;
}

/** The broker: plain functions over validated options. */
export interface TokenBroker {
  /**
   * The access token for an ask: `{ ok: true, accessToken }` at once from a valid grant, or after a refresh
   * when it is within the refresh buffer; `{ ok: false, error }` with the {@link ElicitationRequiredError}
   * to show when there is no usable grant. It rejects only for what no user can fix by authorizing: an
   * unknown provider or a malformed ask (`TokenVaultError`), a provider outage after expiry
   * (`ERR_PROVIDER_UNAVAILABLE`), a storage outage (`StorageUnavailableError` of `@keyhold/core`).
   *
   * @example
   * ```ts
   * const outcome = await broker.requestToken({ ask: 'oauth', provider: 'github', scopes: ['repo'] }, context);
   * if (!outcome.ok) throw outcome.error.toMCPError(UrlElicitationRequiredError);
   * const token = outcome.accessToken;
   * ```
   */
  requestToken(ask: OAuthAsk, context: AskContext): Promise<TokenOutcome>;
  /**
   * Both browser steps as one web-standard handler: `GET` at the paths of `connectUrl` (the connect step,
   * `?elicitation_id=…`) and `callbackUrl` (the provider's redirect: verifies the state, exchanges the code
   * with PKCE, stores the grant), 405 with `Allow` for another method there, 404 elsewhere. `info.userId` is
   * the host's signed-in user, resolved only here (the connect step requires it, the callback checks it is
   * the user who connected).
   *
   * @example
   * ```ts
   * app.get('/auth/oauth/*', (c) => broker.fetch(c.req.raw, { userId: c.get('userId') }));
   * ```
   */
  readonly fetch: FetchHandler;
  /**
   * Whether `fetch` serves this path: the paths of `connectUrl` and `callbackUrl`.
   *
   * @example
   * ```ts
   * const mine = broker.ownsPath('/auth/oauth/callback');
   * ```
   */
  ownsPath(pathname: string): boolean;
  /**
   * Forgets the grant an ask would use (the person disconnects the provider, or an administrator removes
   * it): deleted from storage, so the next ask elicits a new login. Emits `broker.token_deleted` when one
   * was deleted; `true` then. The provider's own grant is not revoked there.
   *
   * @example
   * ```ts
   * await broker.deleteGrant({ ask: 'oauth', provider: 'github', scopes: ['repo'] }, context);
   * ```
   */
  deleteGrant(ask: OAuthAsk, context: AskContext): Promise<boolean>;
  /** Re-encrypts every grant of a tenant under the vault's current key (after a key rotation). */
  rewrapGrants(tenantId: string): Promise<RewrapSummary>;
}

/**
 * Creates a token broker. Options are validated here (`ERR_INVALID_OPTIONS`).
 *
 * @example
 * ```ts
 * const broker = createTokenBroker({
 *   baseUrl: 'https://host.example', vault: createLocalVault({ masterKey }),
 *   storage: createMemoryBrokerStorage(), providers: [{ id: 'github', clientId, clientSecret }],
 * });
 * const outcome = await broker.requestToken({ ask: 'oauth', provider: 'github', scopes: [] }, context);
 * ```
 */
export function createTokenBroker(options: TokenBrokerOptions): TokenBroker {
  // The two browser steps stay off the public object: `fetch` is the one way in.
  const { connect: _connect, callback: _callback, ...broker } = createTokenBrokerWithSteps(options);
  return broker;
}

/** The broker's two browser steps, each a handler of a request already read (what the tests call). */
export interface BrokerSteps {
  /** The connect step: `GET <connectUrl>?elicitation_id=…` with `request.userId` set by the host's session. */
  readonly connect: Handler;
  /** `GET <callbackUrl>`: verifies the state, exchanges the code with PKCE, stores the grant. */
  readonly callback: Handler;
}

/** The broker and its browser steps: the unit token-vault's own tests call. Not part of the package entry. */
export function createTokenBrokerWithSteps(options: TokenBrokerOptions): TokenBroker & BrokerSteps {
  const resolved = resolveBrokerOptions(options);
  const { storage, vault, clock, logger } = resolved;
  // In-process single-flight: concurrent asks for one grant share one refresh.
  const refreshing = new Map<string, Promise<RefreshOutcome>>();

  function providerFor(id: string): Provider {
    const provider = resolved.providers.get(id);
    if (provider === undefined) throw new TokenVaultError('ERR_UNKNOWN_PROVIDER', `no provider ${id}`);
    return provider;
  }

  async function elicit(
    key: GrantKey,
    provider: Provider,
    ask: OAuthAsk,
    clientId: string | undefined,
  ): Promise<ElicitationRequiredError> {
    const now = clock.now();
    const elicitationId = randomToken(16);
    const message =
      ask.message ?? `${provider.name} authorization is needed (${key.scopes.join(' ')}) to continue.`;
    await storage.pending.putElicitation(
      {
        elicitationId,
        tenantId: key.tenantId,
        userId: key.userId,
        toolModuleId: key.toolModuleId,
        provider: key.provider,
        scopes: key.scopes,
        message,
        createdAt: now,
        expiresAt: now + resolved.elicitationTtlMs,
      },
      resolved.maxPendingPerUser,
    );
    const url = new URL(resolved.connectUrl);
    url.searchParams.set('elicitation_id', elicitationId);
    logger.info(
      {
        tenant: key.tenantId,
        userId: key.userId,
        toolModuleId: key.toolModuleId,
        provider: key.provider,
        elicitationId,
      },
      'token-vault: elicitation required',
    );
    resolved.events.emit({
      tenant: key.tenantId,
      reason: 'broker.login_started',
      status: 401,
      userId: key.userId,
      ...(clientId === undefined ? {} : { clientId }),
      provider: key.provider,
      toolModuleId: key.toolModuleId,
    });
    return new ElicitationRequiredError({
      elicitationUrl: url.href,
      elicitationId,
      provider: key.provider,
      scopes: key.scopes,
      message,
    });
  }

  function refreshOnce(provider: Provider, key: GrantKey, clientId?: string): Promise<RefreshOutcome> {
    const id = grantLockKey(key);
    const running = refreshing.get(id);
    if (running !== undefined) return running;
    const started = refreshAcrossProcesses(resolved, provider, key, clientId).finally(() =>
      refreshing.delete(id),
    );
    refreshing.set(id, started);
    return started;
  }

  /** The grant an ask refers to: the provider's default scopes when it names none. */
  function grantKeyOf(ask: OAuthAsk, provider: Provider, context: AskContext): GrantKey {
    const scopes = canonicalScopes(ask.scopes);
    return {
      tenantId: context.tenantId,
      userId: context.userId,
      toolModuleId: context.toolModuleId,
      provider: provider.id,
      scopes: scopes.length === 0 ? provider.defaultScopes : scopes,
    };
  }

  async function requestToken(rawAsk: OAuthAsk, context: AskContext): Promise<TokenOutcome> {
    const ask = parseAsk(rawAsk);
    const provider = providerFor(ask.provider);
    const key = grantKeyOf(ask, provider, context);
    const grant = await storage.grants.get(key);
    if (grant !== undefined && grant.status === 'valid') {
      if (isFresh(grant, clock.now(), resolved.refreshBufferMs)) {
        const accessToken = await vault.decrypt(grant.accessTokenEncrypted, {
          tenantId: key.tenantId,
          userId: key.userId,
          toolModuleId: key.toolModuleId,
          provider: key.provider,
        });
        return { ok: true, accessToken };
      }
      if (grant.refreshTokenEncrypted !== undefined) {
        const refreshed = await refreshOnce(provider, key, context.clientId);
        if (refreshed.ok) return refreshed;
      }
    }
    return { ok: false, error: await elicit(key, provider, ask, context.clientId) };
  }

  // A storage outage in a browser step is a 503 page, recorded as 503 by the tracing around it.
  const connect = traceHandler(
    answeringOutages(createConnectHandler(resolved), resolved.logger, 'connect'),
    options.tracing,
    'connect',
  );
  const callback = traceHandler(
    answeringOutages(createCallbackHandler(resolved), resolved.logger, 'callback'),
    options.tracing,
    'callback',
  );
  const connectPath = new URL(resolved.connectUrl).pathname;
  const callbackPath = new URL(resolved.callbackUrl).pathname;
  async function deleteGrant(rawAsk: OAuthAsk, context: AskContext): Promise<boolean> {
    const ask = parseAsk(rawAsk);
    const provider = providerFor(ask.provider);
    const key = grantKeyOf(ask, provider, context);
    const deleted = await storage.grants.delete(key);
    if (deleted) {
      logger.info(
        { tenant: key.tenantId, userId: key.userId, toolModuleId: key.toolModuleId, provider: key.provider },
        'token-vault: grant deleted',
      );
      resolved.events.emit({
        tenant: key.tenantId,
        reason: 'broker.token_deleted',
        status: 200,
        userId: key.userId,
        ...(context.clientId === undefined ? {} : { clientId: context.clientId }),
        provider: key.provider,
        toolModuleId: key.toolModuleId,
      });
    }
    return deleted;
  }

  return {
    requestToken,
    deleteGrant,
    connect,
    callback,
    ownsPath: (pathname) => pathname === connectPath || pathname === callbackPath,
    async fetch(request, info = {}) {
      const path = new URL(request.url).pathname;
      const handler = path === connectPath ? connect : path === callbackPath ? callback : undefined;
      if (handler === undefined) return new Response(null, { status: 404 });
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        return new Response(null, { status: 405, headers: { allow: 'GET' } });
      }
      // Both steps check the signed-in user (the callback against the user who connected).
      const userId = await userIdOf(info);
      const read = await readHandlerRequest(
        request,
        { ...info, ...(userId === undefined ? {} : { userId }) },
        {
          bodyLimitBytes: 0,
        },
      );
      return toResponse(await handler(read));
    },
    async rewrapGrants(tenantId) {
      let rewrapped = 0;
      let skipped = 0;
      for (const grant of await storage.grants.list({ tenantId })) {
        const binding = {
          tenantId: grant.tenantId,
          userId: grant.userId,
          toolModuleId: grant.toolModuleId,
          provider: grant.provider,
        };
        const { version, ...rest } = grant;
        const next = {
          ...rest,
          accessTokenEncrypted: await vault.rewrap(grant.accessTokenEncrypted, binding),
          ...(grant.refreshTokenEncrypted === undefined
            ? {}
            : { refreshTokenEncrypted: await vault.rewrap(grant.refreshTokenEncrypted, binding) }),
          updatedAt: clock.now(),
        };
        if (await storage.grants.compareAndSwap(next, version)) rewrapped += 1;
        else skipped += 1;
      }
      return { rewrapped, skipped };
    },
  };
}
