import type { HandlerRequest, HandlerResult } from '@keyhold/core';
import { formEncode } from '@keyhold/internal';
import * as fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  assertNoInjectedMarkup,
  assertSafeResult,
  encodedForm,
  fuzzOptions,
  fuzzRuns,
  fuzzTimeoutMs,
  HOSTILE_REDIRECTS,
  hostileForm,
  hostileString,
  matchesRedirectUri,
  payload,
  SCRIPT_PAYLOADS,
  wellFormed,
} from '../../../../test-support/fuzz.js';
import type { TestServer } from '../helpers.js';
import {
  authorizeRequest,
  BASE_URL,
  basic,
  createTestServer,
  exchangeCode,
  get,
  location,
  obtainCode,
  pkce,
  postForm,
  provisionClient,
  REDIRECT_URI,
  RESOURCE,
  registerClient,
  USER,
} from '../helpers.js';

const LOOPBACK_REDIRECT = 'http://127.0.0.1:4000/cb';

interface Fixture {
  readonly t: TestServer;
  readonly publicClient: { client_id: string };
  readonly confidential: { client_id: string; client_secret: string };
  readonly redirectUris: string[];
  /** Real values of the fixture, so the fuzzer reaches past the first checks. */
  readonly known: string[];
  readonly pendingId: string;
}

let fx: Fixture;

/**
 * A tenant with an ES256 key, a public and a confidential client, a pending authorization on the consent
 * screen, a live code, an access token and a refresh token.
 */
beforeAll(async () => {
  const t = await createTestServer({
    tenant: { scopesSupported: ['openid', 'mcp', 'notes:read'], firstPartyClientIds: [] },
  });
  const publicClient = await registerClient(t.server, {
    token_endpoint_auth_method: 'none',
    redirect_uris: [REDIRECT_URI, LOOPBACK_REDIRECT],
  });
  // Machine grants need a host decision: the confidential client is provisioned.
  const confidential = (await provisionClient(t.server, {
    grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'],
    redirectUris: [REDIRECT_URI],
  })) as { client_id: string; client_secret: string };
  const authorize = await t.server.authorize(
    authorizeRequest(publicClient.client_id, { state: 'pending-state' }),
    'demo',
  );
  const pendingId = location(authorize).searchParams.get('req') ?? '';
  const { code, verifier } = await obtainCode(t, confidential.client_id, { scope: 'openid mcp' });
  const issued = await t.server.token(
    postForm(
      '/tenant/demo/token',
      { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT_URI },
      basic(confidential.client_id, confidential.client_secret),
    ),
    'demo',
  );
  const tokens = JSON.parse(issued.body ?? '{}') as { access_token: string; refresh_token: string };
  const live = await obtainCode(t, publicClient.client_id);
  fx = {
    t,
    publicClient,
    confidential,
    redirectUris: [REDIRECT_URI, LOOPBACK_REDIRECT],
    pendingId,
    known: [
      publicClient.client_id,
      confidential.client_id,
      confidential.client_secret,
      REDIRECT_URI,
      LOOPBACK_REDIRECT,
      'http://127.0.0.1:9/cb',
      pendingId,
      live.code,
      live.verifier,
      pkce().challenge,
      tokens.access_token,
      tokens.refresh_token,
      RESOURCE,
      'S256',
      'code',
      'openid mcp',
      'approve',
      'deny',
      'authorization_code',
      'refresh_token',
      'client_credentials',
      'urn:ietf:params:oauth:grant-type:token-exchange',
      'urn:ietf:params:oauth:token-type:access_token',
      'none',
      'consent',
      'login',
    ],
  };
});

/** A location is legitimate when it goes to a registered redirect URI or to the server itself. */
function redirectAllowed(target: URL): boolean {
  return target.origin === BASE_URL || fx.redirectUris.some((uri) => matchesRedirectUri(target, uri));
}

function check(result: HandlerResult): void {
  assertSafeResult(result, { redirectAllowed });
}

const userId = (): fc.Arbitrary<string | undefined> =>
  fc.option(fc.oneof(fc.constant(USER), fc.constant('other-user'), hostileString()), { nil: undefined });

const slug = (): fc.Arbitrary<string> =>
  fc.oneof({ weight: 12, arbitrary: fc.constant('demo') }, { weight: 1, arbitrary: hostileString() });

const headers = (): fc.Arbitrary<Record<string, string>> =>
  fc.record(
    {
      'content-type': fc.oneof(
        fc.constantFrom(
          'application/x-www-form-urlencoded',
          'application/x-www-form-urlencoded; charset=utf-8',
          'application/json',
          'text/plain',
          'multipart/form-data; boundary=x',
        ),
        hostileString(),
      ),
      authorization: fc.oneof(
        fc.constant(basic('placeholder', 'x').authorization ?? ''),
        hostileString().map((value) => `Basic ${Buffer.from(value, 'latin1').toString('base64')}`),
        hostileString().map((value) => `Basic ${value}`),
        hostileString().map((value) => `Bearer ${value}`),
        hostileString(),
      ),
      origin: hostileString(),
    },
    { requiredKeys: [] },
  );

function request(
  method: string,
  path: string,
  query: string,
  body: string,
  extra: { headers?: Record<string, string>; userId?: string | undefined } = {},
): HandlerRequest {
  return {
    method,
    path,
    query,
    headers: extra.headers ?? {},
    body,
    ...(extra.userId === undefined ? {} : { userId: extra.userId }),
  };
}

/** Registers a public client under a fuzzed `clientName`, answering the raw result (it may be refused). */
function registerNamed(clientName: string): Promise<HandlerResult> {
  return fx.t.server.register(
    request(
      'POST',
      '/tenant/demo/register',
      '',
      JSON.stringify({
        redirect_uris: [REDIRECT_URI],
        client_name: clientName,
        token_endpoint_auth_method: 'none',
      }),
      { headers: { 'content-type': 'application/json' } },
    ),
    'demo',
  );
}

/** Authorization parameters that are mostly right, one or more of them hostile. */
function authorizeQuery(): fc.Arbitrary<string> {
  const known = (values: readonly string[]) =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...values) },
      { weight: 1, arbitrary: hostileString(fx.known) },
    );
  const structured = encodedForm(
    fc.record(
      {
        client_id: known([
          fx.publicClient.client_id,
          fx.confidential.client_id,
          'https://cimd.example/client',
        ]),
        response_type: known(['code', 'token', 'code id_token']),
        redirect_uri: fc.oneof(
          fc.constantFrom(...fx.redirectUris, 'http://127.0.0.1:5555/cb', ...HOSTILE_REDIRECTS),
          fc.tuple(fc.constantFrom(...fx.redirectUris), payload()).map(([uri, p]) => uri + p),
          hostileString(fx.known),
        ),
        code_challenge: known([pkce().challenge]),
        code_challenge_method: known(['S256', 'plain']),
        state: fc.oneof(hostileString(), fc.constantFrom(...SCRIPT_PAYLOADS)),
        scope: known(['openid', 'mcp notes:read', 'admin']),
        resource: known([RESOURCE, 'https://evil.example/mcp']),
        prompt: known(['none', 'consent', 'none consent', 'login']),
        nonce: hostileString(),
        response_mode: known(['query', 'fragment', 'form_post']),
      },
      { requiredKeys: ['client_id', 'redirect_uri'] },
    ),
  );
  return fc.oneof(
    { weight: 4, arbitrary: structured },
    { weight: 1, arbitrary: hostileForm(Object.keys(AUTHORIZE_NAMES), () => hostileString(fx.known)) },
  );
}

const AUTHORIZE_NAMES = {
  client_id: 1,
  response_type: 1,
  redirect_uri: 1,
  code_challenge: 1,
  code_challenge_method: 1,
  state: 1,
  scope: 1,
  resource: 1,
  prompt: 1,
  nonce: 1,
};

const TOKEN_NAMES = [
  'grant_type',
  'code',
  'code_verifier',
  'redirect_uri',
  'client_id',
  'client_secret',
  'refresh_token',
  'scope',
  'resource',
  'subject_token',
  'subject_token_type',
  'actor_token',
  'actor_token_type',
  'requested_token_type',
  'audience',
];

describe('fuzz: GET /authorize never errors, splits a header or redirects off a registered URI', () => {
  it(
    'answers every query string, logged in or not, with a safe result',
    async () => {
      await fc.assert(
        fc.asyncProperty(authorizeQuery(), userId(), slug(), async (query, user, tenant) => {
          check(
            await fx.t.server.authorize(
              request('GET', `/tenant/${tenant}/authorize`, query, '', { userId: user }),
              tenant,
            ),
          );
        }),
        fuzzOptions(),
      );
    },
    fuzzTimeoutMs(),
  );

  it(
    'never redirects to a javascript:, data: or unregistered URI, whatever the client asks',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...HOSTILE_REDIRECTS), payload(), async (redirectUri, state) => {
          const result = await fx.t.server.authorize(
            get(
              '/tenant/demo/authorize',
              {
                client_id: fx.publicClient.client_id,
                response_type: 'code',
                redirect_uri: redirectUri,
                code_challenge: pkce().challenge,
                code_challenge_method: 'S256',
                state,
              },
              USER,
            ),
            'demo',
          );
          check(result);
          expect(result.status).toBe(400);
          expect(result.headers.location).toBeUndefined();
        }),
        fuzzOptions(),
      );
    },
    fuzzTimeoutMs(),
  );
});

describe('fuzz: the consent screen and decision', () => {
  it(
    'GET /consent answers any req, any user, safely',
    async () => {
      const req = fc.oneof(fc.constant(fx.pendingId), hostileString(fx.known));
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            req.map((value) => formEncode({ req: value })),
            hostileForm(['req'], () => req),
          ),
          userId(),
          async (query, user) => {
            check(
              await fx.t.server.consentPage(
                request('GET', '/tenant/demo/consent', query, '', { userId: user }),
                'demo',
              ),
            );
          },
        ),
        fuzzOptions(),
      );
    },
    fuzzTimeoutMs(),
  );

  it(
    'POST /consent answers any form, content type and user safely (the fixture pending request is never approved by another user)',
    async () => {
      const values = (name: string) =>
        name === 'decision'
          ? fc.oneof(fc.constantFrom('approve', 'deny'), hostileString())
          : fc.oneof(fc.constant(fx.pendingId), hostileString(fx.known));
      await fc.assert(
        fc.asyncProperty(
          hostileForm(['req', 'decision'], values),
          headers(),
          fc.option(fc.oneof(fc.constant('other-user'), hostileString()), { nil: undefined }),
          async (body, hdrs, user) => {
            const result = await fx.t.server.consent(
              request('POST', '/tenant/demo/consent', '', body, { headers: hdrs, userId: user }),
              'demo',
            );
            check(result);
          },
        ),
        fuzzOptions(),
      );
      // Nobody but its user could decide it: the fixture's pending authorization is still there.
      expect(await fx.t.storage.pendingAuthorizations.get('demo', fx.pendingId)).toBeDefined();
    },
    fuzzTimeoutMs(),
  );

  it(
    'shows a client name full of markup escaped on the consent screen',
    async () => {
      let shown = 0;
      const runs = Math.max(20, Math.floor(fuzzRuns() / 4));
      const name = fc.oneof(
        fc.constantFrom(...SCRIPT_PAYLOADS),
        fc
          .tuple(
            fc.string({ maxLength: 40 }),
            fc.constantFrom(...SCRIPT_PAYLOADS),
            fc.string({ maxLength: 40 }),
          )
          .map((parts) => parts.join('')),
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 200 }),
      );
      await fc.assert(
        fc.asyncProperty(name, async (clientName) => {
          const registered = await registerNamed(clientName);
          check(registered);
          if (registered.status !== 201) return;
          const client = JSON.parse(registered.body ?? '{}') as { client_id: string };
          const authorize = await fx.t.server.authorize(
            authorizeRequest(client.client_id, { scope: 'mcp' }),
            'demo',
          );
          check(authorize);
          const page = await fx.t.server.consentPage(
            get('/tenant/demo/consent', { req: location(authorize).searchParams.get('req') ?? '' }, USER),
            'demo',
          );
          expect(page.status).toBe(200);
          check(page);
          assertNoInjectedMarkup(page.body ?? '');
          shown++;
        }),
        fuzzOptions(runs),
      );
      // The property held on real consent screens, not only on refused registrations.
      expect(shown).toBeGreaterThan(runs / 2);
    },
    fuzzTimeoutMs(),
  );
});

describe('fuzz: the connected-apps page and its revoke form', () => {
  it(
    'GET and POST /connected-apps answer any query, form, cookie and user safely, and a forged POST revokes nothing',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          hostileString(),
          hostileForm(['grant_id', 'csrf_token']),
          hostileString(),
          userId(),
          async (query, form, cookie, user) => {
            const page = await fx.t.server.connectedAppsPage(
              request('GET', '/tenant/demo/connected-apps', query, '', { userId: user }),
              'demo',
            );
            check(page);
            if (page.status === 200) assertNoInjectedMarkup(page.body ?? '');
            const posted = await fx.t.server.connectedAppsRevoke(
              request('POST', '/tenant/demo/connected-apps', '', form, {
                headers: {
                  'content-type': 'application/x-www-form-urlencoded',
                  cookie: `keyhold_apps=${cookie}`,
                },
                userId: user,
              }),
              'demo',
            );
            check(posted);
            // No valid token can be guessed: signed in, every answer is a refusal page; signed out, the login.
            expect([303, 400, 403]).toContain(posted.status);
            if (posted.status === 303) expect(posted.headers.location).not.toContain('notice=revoked');
          },
        ),
        fuzzOptions(),
      );
    },
    fuzzTimeoutMs(),
  );

  it(
    'shows a client name full of markup escaped on the connected-apps page',
    async () => {
      const runs = Math.max(10, Math.floor(fuzzRuns() / 8));
      const name = fc.oneof(
        fc.constantFrom(...SCRIPT_PAYLOADS),
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 200 }),
      );
      let shown = 0;
      await fc.assert(
        fc.asyncProperty(name, async (clientName) => {
          const registered = await registerNamed(clientName);
          if (registered.status !== 201) return;
          const client = JSON.parse(registered.body ?? '{}') as { client_id: string };
          // A user of its own per run: the page shows this one grant.
          const user = `apps-${shown}-${client.client_id}`;
          const { code, verifier } = await obtainCode(fx.t, client.client_id, { userId: user });
          const token = await exchangeCode(fx.t, client, code, verifier);
          expect(token.status).toBe(200);
          const page = await fx.t.server.connectedAppsPage(
            request('GET', '/tenant/demo/connected-apps', '', '', { userId: user }),
            'demo',
          );
          expect(page.status).toBe(200);
          check(page);
          assertNoInjectedMarkup(page.body ?? '');
          expect(page.body).toContain(`<code>${client.client_id}</code>`);
          shown++;
        }),
        fuzzOptions(runs),
      );
      expect(shown).toBeGreaterThan(runs / 2);
    },
    fuzzTimeoutMs(),
  );
});

describe('fuzz: the JSON endpoints answer RFC 6749 errors, never a 5xx', () => {
  it(
    'POST /token: any form, any client authentication',
    async () => {
      const values = (name: string) =>
        name === 'grant_type'
          ? fc.oneof(
              fc.constantFrom(
                'authorization_code',
                'refresh_token',
                'client_credentials',
                'urn:ietf:params:oauth:grant-type:token-exchange',
                'password',
                'implicit',
              ),
              hostileString(),
            )
          : hostileString(fx.known);
      const auth = fc.oneof(
        fc.constant({}),
        fc.constant(basic(fx.confidential.client_id, fx.confidential.client_secret)),
        fc
          .tuple(hostileString(fx.known), hostileString(fx.known))
          .map(([id, secret]) => basic(wellFormed(id), wellFormed(secret))),
        headers(),
      );
      await fc.assert(
        fc.asyncProperty(hostileForm(TOKEN_NAMES, values), auth, slug(), async (body, hdrs, tenant) => {
          const result = await fx.t.server.token(
            request('POST', `/tenant/${tenant}/token`, '', body, {
              headers: { 'content-type': 'application/x-www-form-urlencoded', ...hdrs },
            }),
            tenant,
          );
          check(result);
          if (result.status >= 400) expect(JSON.parse(result.body ?? '{}')).toHaveProperty('error');
        }),
        fuzzOptions(),
      );
    },
    fuzzTimeoutMs(),
  );

  it(
    'POST /register: any JSON (hostile redirect URIs, script in names) or non-JSON',
    async () => {
      const metadata = fc.record(
        {
          redirect_uris: fc.oneof(
            fc.array(fc.oneof(fc.constantFrom(...HOSTILE_REDIRECTS, REDIRECT_URI), hostileString()), {
              maxLength: 25,
            }),
            hostileString(),
          ),
          client_name: fc.oneof(fc.constantFrom(...SCRIPT_PAYLOADS), hostileString()),
          token_endpoint_auth_method: fc.oneof(
            fc.constantFrom('none', 'client_secret_basic', 'private_key_jwt'),
            hostileString(),
          ),
          grant_types: fc.array(
            fc.oneof(
              fc.constantFrom(...TOKEN_NAMES, 'authorization_code', 'client_credentials'),
              hostileString(),
            ),
            { maxLength: 6 },
          ),
          scope: hostileString(),
          client_uri: fc.oneof(fc.constantFrom(...HOSTILE_REDIRECTS), hostileString()),
          logo_uri: fc.oneof(fc.constantFrom(...HOSTILE_REDIRECTS), hostileString()),
          __proto__: fc.object(),
          jwks: fc.object(),
        },
        { requiredKeys: [] },
      );
      const body = fc.oneof(
        { weight: 4, arbitrary: metadata.map((m) => JSON.stringify(m)) },
        { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
        { weight: 1, arbitrary: hostileString() },
      );
      await fc.assert(
        fc.asyncProperty(body, headers(), async (raw, hdrs) => {
          const result = await fx.t.server.register(
            request('POST', '/tenant/demo/register', '', raw, {
              headers: { 'content-type': 'application/json', ...hdrs },
            }),
            'demo',
          );
          check(result);
          if (result.status === 201) {
            const created = JSON.parse(result.body ?? '{}') as { redirect_uris?: string[] };
            for (const uri of created.redirect_uris ?? []) {
              expect(uri).not.toMatch(/^\s*(javascript|data|vbscript|file):/i);
              expect(uri).not.toMatch(/[\r\n]/);
            }
          }
        }),
        fuzzOptions(),
      );
    },
    fuzzTimeoutMs(),
  );

  for (const endpoint of ['revoke', 'introspect'] as const) {
    it(
      `POST /${endpoint}: any form, any client authentication`,
      async () => {
        await fc.assert(
          fc.asyncProperty(
            hostileForm(['token', 'token_type_hint', 'client_id', 'client_secret'], () =>
              hostileString(fx.known),
            ),
            fc.oneof(fc.constant(basic(fx.confidential.client_id, fx.confidential.client_secret)), headers()),
            async (body, hdrs) => {
              const result = await fx.t.server[endpoint](
                request('POST', `/tenant/demo/${endpoint}`, '', body, {
                  headers: { 'content-type': 'application/x-www-form-urlencoded', ...hdrs },
                }),
                'demo',
              );
              check(result);
            },
          ),
          fuzzOptions(),
        );
      },
      fuzzTimeoutMs(),
    );
  }

  it(
    'metadata, protected resource metadata and JWKS: any tenant slug, method and query',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('authorizationServerMetadata', 'protectedResourceMetadata', 'jwks'),
          slug(),
          fc.constantFrom('GET', 'HEAD', 'POST', 'OPTIONS', 'DELETE'),
          hostileForm(['x']),
          async (endpoint, tenant, method, query) => {
            check(await fx.t.server[endpoint](request(method, `/.well-known/${tenant}`, query, ''), tenant));
          },
        ),
        fuzzOptions(),
      );
    },
    fuzzTimeoutMs(),
  );
});

describe('fuzz: verifyAccessToken never throws and its challenge never splits a header', () => {
  it(
    'answers any Authorization header with claims or a 401/403 challenge',
    async () => {
      const header = fc.oneof(
        hostileString(fx.known),
        hostileString(fx.known).map((value) => `Bearer ${value}`),
        // A real token with one character changed, truncated or extended.
        fc
          .tuple(
            fc.constantFrom(...fx.known.filter((k) => k.split('.').length === 3)),
            fc.nat(),
            fc.string({ maxLength: 3 }),
          )
          .map(
            ([token, at, glue]) =>
              `Bearer ${token.slice(0, at % token.length)}${glue}${token.slice((at % token.length) + 1)}`,
          ),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.option(header, { nil: undefined }),
          slug(),
          fc.record(
            { requiredScopes: fc.array(hostileString(), { maxLength: 3 }), resource: hostileString() },
            { requiredKeys: [] },
          ),
          async (authorization, tenant, options) => {
            const outcome = await fx.t.server.verifyAccessToken(tenant, authorization, options);
            if (!outcome.ok) {
              expect([401, 403]).toContain(outcome.result.status);
              check(outcome.result);
            }
          },
        ),
        fuzzOptions(),
      );
    },
    fuzzTimeoutMs(),
  );
});
