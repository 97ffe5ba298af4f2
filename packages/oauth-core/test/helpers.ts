import { createHash } from 'node:crypto';
import type { HandlerRequest, HandlerResult, ManualClock } from '@keyhold/core';
import { createManualClock } from '@keyhold/core';
import { formEncode, randomToken } from '@keyhold/internal';
import type { AuthorizationServerWithEndpoints } from '../src/authorization-server.js';
import { createAuthorizationServerWithEndpoints } from '../src/authorization-server.js';
import type { CimdResolver } from '../src/cimd/types.js';
import type {
  AuthEvent,
  AuthMetrics,
  AuthorizationServerOptions,
  ClientProvisionInput,
  OAuthStorage,
  SigningKeyConfig,
  TenantConfig,
} from '../src/index.js';
import { createMemoryStorage, generateSigningKey } from '../src/index.js';
import type { AuthEventAttributes } from '../src/metrics-types.js';
import type { ResolverOverrides } from '../src/options.js';

export const BASE_URL = 'https://auth.example';
export const ISSUER: string = `${BASE_URL}/tenant/demo`;
export const RESOURCE: string = `${ISSUER}/mcp`;
export const REDIRECT_URI = 'https://app.example/callback';
export const USER = 'user-1';

export interface TestServer {
  readonly server: AuthorizationServerWithEndpoints;
  readonly storage: OAuthStorage;
  readonly clock: ManualClock;
  /** The live tenant config: tests may edit it between requests. */
  readonly tenant: { -readonly [K in keyof TenantConfig]: TenantConfig[K] } & {
    signingKeys: SigningKeyConfig[];
  };
  readonly events: AuthEventAttributes[];
}

export interface TestServerOptions {
  readonly tenant?: Partial<TenantConfig>;
  readonly alg?: SigningKeyConfig['alg'];
  readonly cimdResolver?: CimdResolver;
  readonly options?: Partial<AuthorizationServerOptions & ResolverOverrides>;
}

export async function createTestServer(overrides: TestServerOptions = {}): Promise<TestServer> {
  const storage = createMemoryStorage();
  const clock = createManualClock(Date.parse('2026-03-01T12:00:00Z'));
  const events: AuthEventAttributes[] = [];
  const metrics: AuthMetrics = { event: (attributes) => events.push(attributes), cimdFetch: () => {} };
  const tenant = {
    signingKeys: [await generateSigningKey(overrides.alg ?? 'ES256', 'k1')],
    ...overrides.tenant,
  } as TestServer['tenant'];
  const server = createAuthorizationServerWithEndpoints({
    baseUrl: BASE_URL,
    // A copy per lookup: tests edit the live config between requests, and the server reuses the tenant it
    // built for as long as the lookup returns the same object.
    tenants: { get: (slug) => (slug === 'demo' ? { ...tenant } : undefined) },
    storage,
    clock,
    metrics,
    ...(overrides.cimdResolver ? { cimdResolver: overrides.cimdResolver } : {}),
    ...overrides.options,
  });
  return { server, storage, clock, tenant, events };
}

export function get(
  path: string,
  query: Record<string, string | undefined> = {},
  userId?: string,
): HandlerRequest {
  return {
    method: 'GET',
    path,
    query: formEncode(query),
    headers: {},
    body: '',
    ...(userId === undefined ? {} : { userId }),
  };
}

export function postForm(
  path: string,
  form: Record<string, string | undefined> | string,
  headers: Record<string, string> = {},
  userId?: string,
): HandlerRequest {
  return {
    method: 'POST',
    path,
    query: '',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: typeof form === 'string' ? form : formEncode(form),
    ...(userId === undefined ? {} : { userId }),
  };
}

export function basic(clientId: string, secret: string): Record<string, string> {
  const encoded = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString(
    'base64',
  );
  return { authorization: `Basic ${encoded}` };
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomToken(32);
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function json(result: HandlerResult): Record<string, unknown> {
  return JSON.parse(result.body ?? 'null') as Record<string, unknown>;
}

export function location(result: HandlerResult): URL {
  const value = result.headers.location;
  if (!value) throw new Error(`expected a redirect, got ${result.status}: ${result.body}`);
  return new URL(value);
}

export function decodePayload(jwt: string): Record<string, unknown> {
  const part = jwt.split('.')[1] ?? '';
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
}

export async function registerClient(
  server: AuthorizationServerWithEndpoints,
  metadata: Record<string, unknown> = {},
): Promise<{ client_id: string; client_secret?: string } & Record<string, unknown>> {
  const result = await server.register(
    {
      method: 'POST',
      path: '/tenant/demo/register',
      query: '',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT_URI], client_name: 'Example App', ...metadata }),
    },
    'demo',
  );
  if (result.status !== 201) throw new Error(`registration failed: ${result.body}`);
  return json(result) as { client_id: string; client_secret?: string };
}

/** The anti-forgery pair a consent page hands the browser: its cookie (`name=value`) and the form token. */
export function consentFormFields(page: HandlerResult): { cookie: string; csrfToken: string } {
  const cookie = (page.headers['set-cookie'] ?? '').split(';', 1)[0] ?? '';
  const csrfToken = /name="csrf_token" value="([^"]+)"/.exec(page.body ?? '')?.[1];
  if (cookie === '' || csrfToken === undefined) {
    throw new Error(`no consent form in ${page.status}: ${page.body}`);
  }
  return { cookie, csrfToken };
}

/** What a browser does on the consent screen: load it (getting its cookie and token), then post a decision. */
export async function decideConsent(
  server: AuthorizationServerWithEndpoints,
  req: string,
  decision: string = 'approve',
  userId: string | undefined = USER,
  headers: Record<string, string> = {},
): Promise<HandlerResult> {
  const page = await server.consentPage(get('/tenant/demo/consent', { req }, userId), 'demo');
  const { cookie, csrfToken } = consentFormFields(page);
  return server.consent(
    postForm(
      '/tenant/demo/consent',
      { req, decision, csrf_token: csrfToken },
      { cookie, ...headers },
      userId,
    ),
    'demo',
  );
}

/**
 * A browser's GET to the demo tenant's /authorize for `clientId` as `userId`: a code request to REDIRECT_URI
 * with a fresh PKCE S256 challenge, which is what almost every test sends; `params` adds to or overrides it.
 */
export function authorizeRequest(
  clientId: string,
  params: Record<string, string | undefined> = {},
  userId: string | undefined = USER,
): HandlerRequest {
  return get(
    '/tenant/demo/authorize',
    {
      client_id: clientId,
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
      ...params,
    },
    userId,
  );
}

/** Runs authorize (and, when asked, consent) and returns the code. */
export async function obtainCode(
  t: TestServer,
  clientId: string,
  options: { scope?: string; nonce?: string; resource?: string; challenge?: string; userId?: string } = {},
): Promise<{ code: string; verifier: string }> {
  const { verifier, challenge } = pkce();
  const userId = options.userId ?? USER;
  const authorize = await t.server.authorize(
    authorizeRequest(
      clientId,
      {
        code_challenge: options.challenge ?? challenge,
        state: 'st',
        scope: options.scope,
        nonce: options.nonce,
        resource: options.resource,
      },
      userId,
    ),
    'demo',
  );
  let target = location(authorize);
  if (target.pathname === '/tenant/demo/consent') {
    const req = target.searchParams.get('req') ?? '';
    const decided = await decideConsent(t.server, req, 'approve', userId);
    target = location(decided);
  }
  const code = target.searchParams.get('code');
  if (!code) throw new Error(`no code in ${target}`);
  return { code, verifier };
}

/**
 * The whole code flow for a registered `client`: authorize (consenting when asked), then exchange the code;
 * answers the token response's JSON body. For tests that need tokens, not the steps.
 */
export async function obtainTokens(
  t: TestServer,
  client: { client_id: string; client_secret?: string },
  options: Parameters<typeof obtainCode>[2] = {},
): Promise<Record<string, unknown>> {
  const { code, verifier } = await obtainCode(t, client.client_id, options);
  return json(await exchangeCode(t, client, code, verifier));
}

export async function exchangeCode(
  t: TestServer,
  client: { client_id: string; client_secret?: string },
  code: string,
  verifier: string,
  extra: Record<string, string> = {},
): Promise<HandlerResult> {
  return t.server.token(
    postForm(
      '/tenant/demo/token',
      {
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT_URI,
        ...(client.client_secret ? {} : { client_id: client.client_id }),
        ...extra,
      },
      client.client_secret ? basic(client.client_id, client.client_secret) : {},
    ),
    'demo',
  );
}

/**
 * A refresh_token grant for `client`, authenticated as `exchangeCode` does: HTTP Basic when it has a secret,
 * else its client_id in the form.
 */
export async function redeemRefreshToken(
  t: TestServer,
  client: { client_id: string; client_secret?: string },
  refreshToken: string,
): Promise<HandlerResult> {
  return t.server.token(
    postForm(
      '/tenant/demo/token',
      {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        ...(client.client_secret ? {} : { client_id: client.client_id }),
      },
      client.client_secret ? basic(client.client_id, client.client_secret) : {},
    ),
    'demo',
  );
}

/** Provisions a client through the host API (machine grants need it), in the shape registerClient answers. */
export async function provisionClient(
  server: AuthorizationServerWithEndpoints,
  input: ClientProvisionInput,
): Promise<{ client_id: string; client_secret?: string }> {
  const created = await server.clients.provision('demo', input);
  return {
    client_id: created.clientId,
    ...(created.clientSecret === undefined ? {} : { client_secret: created.clientSecret }),
  };
}

export interface RecordedServer {
  readonly t: TestServer;
  readonly hooked: AuthEvent[];
  readonly timeline: () => Promise<AuthEvent[]>;
}

/**
 * A test server whose `events` hook records every event (`hooked`), and its stored timeline oldest first.
 * The server emits without waiting: await {@link settled} before reading either.
 */
export async function createRecordedServer(options: TestServerOptions = {}): Promise<RecordedServer> {
  const hooked: AuthEvent[] = [];
  const t = await createTestServer({
    ...options,
    options: { events: { onEvent: (event) => void hooked.push(event) }, ...options.options },
  });
  const timeline = async () => [...(await t.server.listEvents('demo', { limit: 1000 }))].reverse();
  return { t, hooked, timeline };
}

/** Lets the writes and appends the server started without waiting settle. */
export const settled = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** A refresh_token request with an unknown token from a Basic-authenticated client: a refusal naming it. */
export function refuseRefresh(
  t: TestServer,
  client: { client_id: string; client_secret?: string },
): Promise<HandlerResult> {
  return t.server.token(
    postForm(
      '/',
      { grant_type: 'refresh_token', refresh_token: 'unknown' },
      basic(client.client_id, client.client_secret ?? ''),
    ),
    'demo',
  );
}
