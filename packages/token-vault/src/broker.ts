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
}

/** The outcome of {@link TokenBroker.requestToken}: a token, or the elicitation the user must complete. */
export type TokenOutcome =
  | { readonly ok: true; readonly accessToken: string }
  | { readonly ok: false; readonly error: ElicitationRequiredError };

/** A tool method that yields asks: a generator, or a function returning one. Each yield evaluates to a token. */
export type AskingMethod<T> =
  | Generator<OAuthAsk, T, string>
  | AsyncGenerator<OAuthAsk, T, string>
  | (() => Generator<OAuthAsk, T, string> | AsyncGenerator<OAuthAsk, T, string>);

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
   * The access token for an ask: returned at once from a valid grant, refreshed when within the refresh
   * buffer, or an {@link ElicitationRequiredError} thrown when there is no usable grant.
   */
  getToken(ask: OAuthAsk, context: AskContext): Promise<string>;
  /** {@link TokenBroker.getToken} as a result instead of an exception. */
  requestToken(ask: OAuthAsk, context: AskContext): Promise<TokenOutcome>;
  /**
   * Drives a generator method: each yielded ask is answered with a token; an elicitation (or any failure)
   * is thrown into the generator at the yield, and out of `runWithAsks` unless the method catches it.
   */
  runWithAsks<T>(method: AskingMethod<T>, context: AskContext): Promise<T>;
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
 * const token = await broker.getToken({ ask: 'oauth', provider: 'github', scopes: [] }, context);
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

  async function elicit(key: GrantKey, provider: Provider, ask: OAuthAsk): Promise<ElicitationRequiredError> {
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
    return new ElicitationRequiredError({
      elicitationUrl: url.href,
      elicitationId,
      provider: key.provider,
      scopes: key.scopes,
      message,
    });
  }

  function refreshOnce(provider: Provider, key: GrantKey): Promise<RefreshOutcome> {
    const id = grantLockKey(key);
    const running = refreshing.get(id);
    if (running !== undefined) return running;
    const started = refreshAcrossProcesses(resolved, provider, key).finally(() => refreshing.delete(id));
    refreshing.set(id, started);
    return started;
  }

  async function requestToken(rawAsk: OAuthAsk, context: AskContext): Promise<TokenOutcome> {
    const ask = parseAsk(rawAsk);
    const provider = providerFor(ask.provider);
    const scopes = canonicalScopes(ask.scopes);
    const key: GrantKey = {
      tenantId: context.tenantId,
      userId: context.userId,
      toolModuleId: context.toolModuleId,
      provider: provider.id,
      scopes: scopes.length === 0 ? provider.defaultScopes : scopes,
    };
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
        const refreshed = await refreshOnce(provider, key);
        if (refreshed.ok) return refreshed;
      }
    }
    return { ok: false, error: await elicit(key, provider, ask) };
  }

  async function getToken(ask: OAuthAsk, context: AskContext): Promise<string> {
    const outcome = await requestToken(ask, context);
    if (!outcome.ok) throw outcome.error;
    return outcome.accessToken;
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
  return {
    getToken,
    requestToken,
    async runWithAsks<T>(method: AskingMethod<T>, context: AskContext): Promise<T> {
      const generator = typeof method === 'function' ? method() : method;
      let step = await generator.next();
      while (step.done !== true) {
        let token: string;
        try {
          token = await getToken(step.value, context);
        } catch (error) {
          step = await generator.throw(error);
          continue;
        }
        step = await generator.next(token);
      }
      return step.value;
    },
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
