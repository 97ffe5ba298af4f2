import type { HandlerRequest, ManualClock, OAuthAsk } from '@keyhold/core';
import { createManualClock } from '@keyhold/core';
import { parseForm } from '@keyhold/internal';
import { HttpResponse, http } from 'msw';
import type { SetupServer } from 'msw/node';
import { expect } from 'vitest';
import type { BrokerSteps } from '../src/broker.js';
import { createTokenBrokerWithSteps } from '../src/broker.js';
import type {
  AskContext,
  ElicitationRequiredError,
  TokenBroker,
  TokenBrokerOptions,
  TokenOutcome,
  TokenVaultStorage,
} from '../src/index.js';
import { createLocalVault, createMemoryBrokerStorage } from '../src/index.js';

export const T0: number = Date.parse('2026-03-01T12:00:00Z');
export const ACME_AUTHORIZE = 'https://acme.example/oauth/authorize';
export const ACME_TOKEN = 'https://acme.example/oauth/token';
export const GITHUB_TOKEN = 'https://github.com/login/oauth/access_token';

/** The ask most tests make: acme's `read` scope, which the harness registers. */
export const ACME_ASK: OAuthAsk = { ask: 'oauth', provider: 'acme', scopes: ['read'] };

/** Every request the mocked token endpoint received, decoded. */
export interface TokenRequestLog {
  readonly url: string;
  readonly params: Record<string, string>;
  readonly headers: Record<string, string>;
}

export interface Harness {
  readonly broker: TokenBroker & BrokerSteps;
  readonly storage: TokenVaultStorage;
  readonly clock: ManualClock;
  readonly context: AskContext;
}

export function makeHarness(
  overrides: Partial<TokenBrokerOptions> = {},
  shared: { storage?: TokenVaultStorage; clock?: ManualClock } = {},
): Harness {
  const clock = shared.clock ?? createManualClock(T0);
  const storage = shared.storage ?? createMemoryBrokerStorage();
  const broker = createTokenBrokerWithSteps({
    baseUrl: 'https://host.example',
    vault: createLocalVault({ masterKey: 'a-master-key-of-at-least-32-bytes-long', scryptCost: 1024 }),
    storage,
    clock,
    refreshPollIntervalMs: 5,
    providers: [
      {
        id: 'acme',
        name: 'Acme',
        authorizationUrl: ACME_AUTHORIZE,
        tokenUrl: ACME_TOKEN,
        scopes: ['read', 'profile'],
        clientId: 'acme-client',
        clientSecret: 'acme-secret',
      },
      { id: 'github', clientId: 'gh-client', clientSecret: 'gh-secret' },
    ],
    ...overrides,
  });
  return {
    broker,
    storage,
    clock,
    context: { tenantId: 'tenant-a', userId: 'user-1', toolModuleId: 'module-1' },
  };
}

/** The elicitation of an ask that finds no usable grant; an outcome with a token fails the test. */
export async function elicitationOf(outcome: Promise<TokenOutcome>): Promise<ElicitationRequiredError> {
  const settled = await outcome;
  if (settled.ok) throw new Error('expected an elicitation, the broker answered a token');
  return settled.error;
}

export function getRequest(url: string, userId?: string): HandlerRequest {
  const parsed = new URL(url);
  return {
    method: 'GET',
    path: parsed.pathname,
    query: parsed.search.slice(1),
    headers: {},
    body: '',
    ...(userId === undefined ? {} : { userId }),
  };
}

/** Installs a token endpoint on `server` that records requests and answers with `answer(params)`. */
export function mockTokenEndpoint(
  server: SetupServer,
  url: string,
  answer: (params: Record<string, string>, count: number) => Response | Promise<Response>,
): TokenRequestLog[] {
  const log: TokenRequestLog[] = [];
  server.use(
    http.post(url, async ({ request }) => {
      const parsed = parseForm(await request.text());
      const params = parsed.ok ? { ...parsed.params } : {};
      const headers: Record<string, string> = {};
      request.headers.forEach((value, name) => {
        headers[name] = value;
      });
      log.push({ url, params, headers });
      return answer(params, log.length);
    }),
  );
  return log;
}

export function tokenResponse(body: Record<string, unknown>, status = 200): Response {
  return HttpResponse.json(body, { status });
}

/**
 * Opens the elicitation URL as `userId`, follows the redirect to the provider, and returns the callback
 * request the provider would send back (with `code`), plus the provider redirect URL.
 */
export async function authorizeInBrowser(
  broker: TokenBroker & BrokerSteps,
  elicitationUrl: string,
  userId = 'user-1',
  code = 'code-1',
): Promise<{ callback: HandlerRequest; authorizationUrl: URL }> {
  const connect = await broker.connect(getRequest(elicitationUrl, userId));
  if (connect.status !== 302) throw new Error(`connect answered ${connect.status}: ${connect.body}`);
  const authorizationUrl = new URL(connect.headers.location!);
  const state = authorizationUrl.searchParams.get('state')!;
  const redirect = new URL(authorizationUrl.searchParams.get('redirect_uri')!);
  redirect.searchParams.set('code', code);
  redirect.searchParams.set('state', state);
  // The same signed-in browser comes back to the callback.
  return { callback: getRequest(redirect.href, userId), authorizationUrl };
}

/**
 * Asks for `ask` without a grant, then follows the login link in the browser up to the provider's redirect
 * back: the elicitation error and the browser's steps (the callback request still to make).
 */
export async function loginInBrowser(
  harness: Harness,
  ask: OAuthAsk = ACME_ASK,
  context: AskContext = harness.context,
): Promise<{ error: ElicitationRequiredError; callback: HandlerRequest; authorizationUrl: URL }> {
  const error = await elicitationOf(harness.broker.requestToken(ask, context));
  return { error, ...(await authorizeInBrowser(harness.broker, error.elicitationUrl)) };
}

/**
 * Runs the whole browser leg for `ask` (ask → connect → provider → callback) so that a grant exists: the
 * provider's token endpoint answers `tokens` to the one exchange, and its mock is removed after.
 */
export async function connectGrant(
  server: SetupServer,
  harness: Harness,
  tokens: Record<string, unknown> = {
    access_token: 'access-1',
    refresh_token: 'refresh-1',
    expires_in: 3600,
  },
  ask: OAuthAsk = ACME_ASK,
): Promise<void> {
  const log = mockTokenEndpoint(server, ACME_TOKEN, () => tokenResponse(tokens));
  const { callback } = await loginInBrowser(harness, ask);
  expect((await harness.broker.callback(callback)).status).toBe(200);
  expect(log).toHaveLength(1);
  server.resetHandlers();
}
