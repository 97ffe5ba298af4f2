import type { Clock, Logger } from '@keyhold/core';
import { silentLogger, systemClock } from '@keyhold/core';
import { constantTimeEqual, raceAbort, readCapped, sha256Base64url } from '@keyhold/internal';
import * as oidc from 'openid-client';
import { optionCheck } from '../errors.js';
import { scopeList } from '../scopes.js';
import { createMemoryLoginTransactionStore } from './memory-store.js';
import type { FederatedIdentity, LoginTransactionStore, UserStore } from './storage.js';

/**
 * One upstream OpenID Provider the host lets users sign in with.
 */
export interface FederatedProvider {
  /** The host's name for the provider; chosen by the host, carried in the login transaction. */
  readonly id: string;
  /** The provider's issuer identifier; discovery (OpenID Connect Discovery 1.0) must confirm it exactly. */
  readonly issuer: string;
  readonly clientId: string;
  /** Sent with `client_secret_basic` when given; without it the client is public (`none`) and relies on PKCE. */
  readonly clientSecret?: string;
  /** The host's callback URL registered at the provider. */
  readonly redirectUri: string;
  /** Requested scopes; must contain `openid`. Default `openid`. */
  readonly scope?: string;
  /** Allows `http` for a provider on a loopback address (tests, local development). Default false. */
  readonly allowInsecureRequests?: boolean;
}

/**
 * Options of {@link createFederatedLogin}.
 */
export interface FederatedLoginOptions {
  readonly providers: readonly FederatedProvider[];
  /** Maps (issuer, subject) to the local user id, creating it on the first login. */
  readonly userStore: UserStore;
  /** Pending logins. Default: in memory (one process only; use a shared store when several instances serve). */
  readonly transactionStore?: LoginTransactionStore;
  /** How long a started login may take. Default 600 (10 minutes). */
  readonly transactionTtlSeconds?: number;
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** The network for discovery, token and JWKS requests. Default: the global `fetch`. */
  readonly fetch?: typeof fetch;
  /**
   * Time limit of each request to an identity provider (discovery, token, JWKS, userinfo), covering the
   * headers and the whole body. Default 10 000.
   */
  readonly requestTimeoutMs?: number;
  /** The most bytes of any identity provider answer read; a longer answer fails the request. Default 262 144. */
  readonly maxResponseBytes?: number;
}

/**
 * What {@link FederatedLogin.start} gives the host: the URL to redirect the browser to, and the `state` to keep in
 * the browser's own session (a short-lived, HttpOnly cookie) and hand back to {@link FederatedLogin.complete}.
 *
 * @example
 * ```ts
 * const { url, state } = await login.start('google', { returnTo: '/tenant/demo/authorize?…' });
 * ```
 */
export interface FederatedLoginStart {
  readonly url: string;
  readonly state: string;
}

/**
 * Why a callback did not log anybody in.
 *
 * @example
 * ```ts
 * if (!result.ok && result.error === 'upstream_error') showRetryLink();
 * ```
 */
export type FederatedLoginErrorCode =
  /** The state is unknown, already used, expired, or does not match the browser's session. */
  | 'invalid_state'
  /** The provider answered with an error (for example `access_denied`). */
  | 'upstream_error'
  /** The authorization response, token response or id_token failed validation. */
  | 'invalid_response';

/**
 * The outcome of {@link FederatedLogin.complete}. On success the host sets its own session cookie for `userId`
 * and redirects to `returnTo`; on failure `description` is safe to show the user.
 *
 * @example
 * ```ts
 * if (result.ok) session.set(result.userId);
 * ```
 */
export type FederatedLoginResult =
  | {
      readonly ok: true;
      readonly userId: string;
      /** True on the first login of this identity: the user was just provisioned. */
      readonly created: boolean;
      readonly identity: FederatedIdentity;
      readonly providerId: string;
      /** The validated id_token claims (name, email… as the provider sends them). */
      readonly claims: Readonly<Record<string, unknown>>;
      readonly returnTo?: string;
    }
  | {
      readonly ok: false;
      readonly error: FederatedLoginErrorCode;
      readonly description: string;
      /** The provider's own `error` value, for `upstream_error`. */
      readonly upstreamError?: string;
    };

/**
 * The federated-login helper.
 *
 * @example
 * ```ts
 * const result = await login.complete(request.url, { state: cookies.federated_state });
 * ```
 */
export interface FederatedLogin {
  /** Starts a login at `providerId`: a fresh state, nonce and PKCE verifier, kept server-side. */
  start(providerId: string, options?: { readonly returnTo?: string }): Promise<FederatedLoginStart>;
  /**
   * Completes a login from the callback URL (with its query). `state` is the value the host kept in the
   * browser's session at `start`: it binds the callback to the browser that started the login.
   */
  complete(callbackUrl: string | URL, context: { readonly state: string }): Promise<FederatedLoginResult>;
}

const loopbackHosts: ReadonlySet<string> = new Set(['127.0.0.1', '[::1]', 'localhost']);

function invalid(
  error: FederatedLoginErrorCode,
  description: string,
  upstreamError?: string,
): FederatedLoginResult {
  return upstreamError === undefined
    ? { ok: false, error, description }
    : { ok: false, error, description, upstreamError };
}

// Statuses whose Response cannot carry a body (the Fetch standard's null body statuses).
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * openid-client's fetch: every answer is read here within one deadline and a byte cap, then handed on in
 * full, so an endless, huge or trickling answer from an identity provider fails the request instead of the
 * process. The caller's own signal (openid-client's timeout) still applies.
 */
function boundedFetch(fetchImpl: typeof fetch, timeoutMs: number, maxBytes: number): oidc.CustomFetch {
  return async (url, init) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    const controller = new AbortController();
    const abort = (signal: AbortSignal): void => controller.abort(signal.reason);
    for (const signal of [deadline, init.signal]) {
      if (signal === undefined) continue;
      if (signal.aborted) abort(signal);
      else signal.addEventListener('abort', () => abort(signal), { once: true });
    }
    const { signal } = controller;
    const response = await raceAbort(fetchImpl(url, { ...init, signal } as RequestInit), signal);
    const body = await readCapped(response, maxBytes, signal);
    if (!body.ok) throw new Error(`the identity provider's answer is over ${maxBytes} bytes`);
    return new Response(NULL_BODY_STATUSES.has(response.status) ? null : body.bytes, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/**
 * Creates the federated-login helper: the host's users sign in at an upstream OpenID Provider and arrive with
 * a stable local user id, provisioned on the first login (the service stores no passwords). openid-client does
 * discovery, PKCE (S256), state, nonce and id_token validation; the helper keeps the pending login server-side
 * (keyed by a hash of the state, taken once) and maps (issuer, sub) to the user through the {@link UserStore}.
 * Bad callbacks are results; an unreachable provider or store is an exception (an outage).
 *
 * @example
 * ```ts
 * const login = createFederatedLogin({ providers: [google], userStore });
 * // GET /login           → const { url, state } = await login.start('google', { returnTo }); set cookie; 302 url
 * // GET /callback        → const result = await login.complete(fullUrl, { state: cookie });
 * //                        if (result.ok) { setSessionCookie(result.userId); 302 result.returnTo }
 * ```
 */
export function createFederatedLogin(options: FederatedLoginOptions): FederatedLogin {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const transactions = options.transactionStore ?? createMemoryLoginTransactionStore();
  const ttlSeconds = optionCheck.positiveInteger('transactionTtlSeconds', options.transactionTtlSeconds, 600);
  const requestTimeoutMs = optionCheck.positiveInteger('requestTimeoutMs', options.requestTimeoutMs, 10_000);
  const maxResponseBytes = optionCheck.positiveInteger('maxResponseBytes', options.maxResponseBytes, 262_144);
  const providers = new Map<string, FederatedProvider>();
  for (const provider of options.providers) {
    const name = `providers[${provider.id}]`;
    if (providers.has(provider.id)) throw optionCheck.invalid(`duplicate provider id ${provider.id}`);
    const issuer = optionCheck.absoluteUrl(`${name}.issuer`, provider.issuer);
    if (
      issuer.protocol !== 'https:' &&
      !(provider.allowInsecureRequests && loopbackHosts.has(issuer.hostname))
    ) {
      throw optionCheck.invalid(
        `${name}.issuer must use https (http needs allowInsecureRequests and a loopback host)`,
      );
    }
    if (!scopeList(provider.scope ?? 'openid').includes('openid')) {
      throw optionCheck.invalid(`${name}.scope must include openid`);
    }
    optionCheck.absoluteUrl(`${name}.redirectUri`, provider.redirectUri);
    providers.set(provider.id, provider);
  }
  if (providers.size === 0) throw optionCheck.invalid('providers must list at least one provider');

  // One discovery per provider, shared by concurrent logins; a failed discovery is forgotten so the next
  // login retries it instead of failing until restart.
  const fetchImpl = boundedFetch(options.fetch ?? globalThis.fetch, requestTimeoutMs, maxResponseBytes);
  const configurations = new Map<string, Promise<oidc.Configuration>>();
  const configurationOf = (provider: FederatedProvider): Promise<oidc.Configuration> => {
    let pending = configurations.get(provider.id);
    if (pending === undefined) {
      pending = oidc
        .discovery(
          new URL(provider.issuer),
          provider.clientId,
          { redirect_uris: [provider.redirectUri], response_types: ['code'] },
          provider.clientSecret === undefined ? oidc.None() : oidc.ClientSecretBasic(provider.clientSecret),
          {
            ...(provider.allowInsecureRequests ? { execute: [oidc.allowInsecureRequests] } : {}),
            [oidc.customFetch]: fetchImpl,
            // openid-client's own limit (whole seconds), never shorter than ours.
            timeout: Math.ceil(requestTimeoutMs / 1000),
          },
        )
        .catch((error: unknown) => {
          configurations.delete(provider.id);
          throw error;
        });
      configurations.set(provider.id, pending);
    }
    return pending;
  };

  return {
    async start(providerId, startOptions = {}) {
      const provider = providers.get(providerId);
      if (provider === undefined) {
        throw optionCheck.invalid(`unknown federated provider ${providerId} (not in the providers option)`);
      }
      const configuration = await configurationOf(provider);
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      const codeVerifier = oidc.randomPKCECodeVerifier();
      await transactions.save({
        id: sha256Base64url(state),
        providerId,
        codeVerifier,
        nonce,
        ...(startOptions.returnTo === undefined ? {} : { returnTo: startOptions.returnTo }),
        expiresAt: clock.now() + ttlSeconds * 1000,
      });
      const url = oidc.buildAuthorizationUrl(configuration, {
        redirect_uri: provider.redirectUri,
        scope: provider.scope ?? 'openid',
        state,
        nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
      });
      logger.debug({ provider: providerId }, 'federated login started');
      return { url: url.href, state };
    },

    async complete(callbackUrl, context) {
      const current = new URL(callbackUrl);
      const returnedState = current.searchParams.get('state');
      if (returnedState === null || !constantTimeEqual(returnedState, context.state)) {
        return invalid('invalid_state', 'this sign-in response does not belong to this browser session');
      }
      const transaction = await transactions.consume(sha256Base64url(context.state), clock.now());
      if (transaction === undefined) {
        return invalid('invalid_state', 'this sign-in attempt is unknown, was already used or has expired');
      }
      const provider = providers.get(transaction.providerId);
      if (provider === undefined) {
        return invalid('invalid_state', 'this sign-in attempt names a provider that is no longer configured');
      }
      const configuration = await configurationOf(provider);
      let claims: oidc.IDToken | undefined;
      try {
        const tokens = await oidc.authorizationCodeGrant(configuration, current, {
          pkceCodeVerifier: transaction.codeVerifier,
          expectedState: context.state,
          expectedNonce: transaction.nonce,
          idTokenExpected: true,
        });
        claims = tokens.claims();
      } catch (error) {
        if (error instanceof oidc.AuthorizationResponseError) {
          logger.info(
            { provider: provider.id, upstream_error: error.error },
            'federated login refused upstream',
          );
          return invalid(
            'upstream_error',
            error.error_description ?? `the identity provider answered ${error.error}`,
            error.error,
          );
        }
        if (error instanceof oidc.ResponseBodyError || error instanceof oidc.ClientError) {
          logger.warn(
            { provider: provider.id, code: (error as { code?: unknown }).code, detail: error.message },
            'federated login response rejected',
          );
          return invalid('invalid_response', 'the identity provider’s answer could not be verified');
        }
        throw error;
      }
      if (claims === undefined) return invalid('invalid_response', 'the identity provider sent no id_token');
      const identity: FederatedIdentity = { issuer: claims.iss, subject: claims.sub };
      const { userId, created } = await options.userStore.findOrCreateUser(identity, { now: clock.now() });
      logger.info({ provider: provider.id, userId, created }, 'federated login completed');
      return {
        ok: true,
        userId,
        created,
        identity,
        providerId: provider.id,
        claims: Object.freeze({ ...claims }),
        ...(transaction.returnTo === undefined ? {} : { returnTo: transaction.returnTo }),
      };
    },
  };
}
