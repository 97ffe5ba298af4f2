import { createHash, randomBytes } from 'node:crypto';
import { createLocalVault } from '@keyhold/token-vault';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicCodeExchangeForm } from '../../test-support/code-exchange-form.js';
import { type FrameworkName, startFramework } from './support/frameworks.js';
import { type Running, type RuntimeName, start, WEBHOOK_SECRET } from './support/runtimes.js';

const REDIRECT_URI = 'http://127.0.0.1:9/callback';

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function form(fields: Record<string, string>, headers: Record<string, string> = {}): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  };
}

/** What each runtime is expected to discover (workerd reads the tagged source bundled into the worker). */
const EXPECTED_ROUTES: Record<RuntimeName | FrameworkName, string[]> = {
  express: ['echo/handlePing', 'echo/events'],
  fastify: ['echo/handlePing', 'echo/events'],
  hono: ['echo/handlePing', 'echo/events'],
  'next-route': ['echo/handlePing', 'echo/events'],
  node: ['echo/handlePing', 'echo/events'],
  bun: ['echo/handlePing', 'echo/events'],
  deno: ['echo/handlePing', 'echo/events'],
  workerd: ['echo/handlePing', 'echo/events'],
};

const FRAMEWORKS: readonly string[] = ['express', 'fastify', 'hono', 'next-route'];

describe.each<RuntimeName | FrameworkName>([
  'node',
  'bun',
  'deno',
  'workerd',
  'express',
  'fastify',
  'hono',
  'next-route',
])('on %s, over HTTP from a real server', (runtime) => {
  let server: Running;
  beforeAll(async () => {
    server = FRAMEWORKS.includes(runtime)
      ? await startFramework(runtime as FrameworkName)
      : await start(runtime as RuntimeName);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('runs discovery → registration → authorization code with PKCE (single-user consent) → token → introspection', async () => {
    const origin = server.origin;
    const issuer = `${origin}/tenant/demo`;
    const metadataResponse = await fetch(`${origin}/.well-known/oauth-authorization-server/tenant/demo`);
    expect(metadataResponse.status).toBe(200);
    const metadata = (await metadataResponse.json()) as Record<string, string>;
    expect(metadata['issuer']).toBe(issuer);
    const protectedResource = await fetch(`${origin}/.well-known/oauth-protected-resource/tenant/demo/mcp`);
    expect(protectedResource.status).toBe(200);

    // RFC 7591 dynamic registration of a public client.
    const registered = await fetch(metadata['registration_endpoint']!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        redirect_uris: [REDIRECT_URI],
        token_endpoint_auth_method: 'none',
        client_name: `Runtimes check on ${runtime}`,
      }),
    });
    expect(registered.status).toBe(201);
    const { client_id: clientId } = (await registered.json()) as { client_id: string };

    // RFC 7636: S256 challenge; single-user mode sends the browser straight to the consent page.
    const { verifier, challenge } = pkce();
    const authorize = new URL(metadata['authorization_endpoint']!);
    authorize.search = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      scope: 'mcp:tools',
      state: `state-${runtime}`,
    }).toString();
    const toConsent = await fetch(authorize, { redirect: 'manual' });
    expect(toConsent.status).toBe(302);
    const consentUrl = new URL(toConsent.headers.get('location')!, origin);
    expect(consentUrl.pathname).toBe('/tenant/demo/consent');
    const page = await fetch(consentUrl);
    expect(page.status).toBe(200);
    const cookie = (page.headers.get('set-cookie') ?? '').split(';', 1)[0]!;
    expect(cookie).not.toBe('');
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(await page.text())?.[1];
    expect(csrf).toBeDefined();
    const decided = await fetch(
      consentUrl.origin + consentUrl.pathname,
      form({ req: consentUrl.searchParams.get('req')!, decision: 'approve', csrf_token: csrf! }, { cookie }),
    );
    expect(decided.status).toBe(302);
    const callback = new URL(decided.headers.get('location')!);
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT_URI);
    expect(callback.searchParams.get('state')).toBe(`state-${runtime}`);
    expect(callback.searchParams.get('iss')).toBe(issuer);
    const code = callback.searchParams.get('code')!;

    const token = await fetch(
      metadata['token_endpoint']!,
      form(publicCodeExchangeForm(code, verifier, clientId, REDIRECT_URI)),
    );
    expect(token.status).toBe(200);
    expect(token.headers.get('cache-control')).toBe('no-store');
    const tokens = (await token.json()) as { access_token: string; token_type: string };
    expect(tokens.token_type).toBe('Bearer');

    // RFC 7662: the token is active, for the single user, issued by the tenant.
    const introspected = await fetch(
      metadata['introspection_endpoint']!,
      form({ token: tokens.access_token, client_id: clientId }),
    );
    expect(introspected.status).toBe(200);
    const claims = (await introspected.json()) as Record<string, unknown>;
    expect(claims).toMatchObject({ active: true, iss: issuer, sub: 'owner', client_id: clientId });

    // The MCP endpoint the token is for: 401 with resource metadata without it, a tool call with it.
    const mcpUrl = `${issuer}/mcp`;
    const rpc = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(mcpUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
          ...headers,
        },
        body: JSON.stringify(body),
      });
    const anonymous = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toContain('resource_metadata=');
    const bearer = { authorization: `Bearer ${tokens.access_token}` };
    const initialized = await rpc(
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: runtime, version: '1' },
        },
      },
      bearer,
    );
    expect(initialized.status).toBe(200);
    const session = initialized.headers.get('mcp-session-id');
    await initialized.text();
    const called = await rpc(
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: runtime } } },
      { ...bearer, ...(session === null ? {} : { 'mcp-session-id': session }) },
    );
    expect(called.status).toBe(200);
    const text = await called.text();
    // JSON or one SSE event, depending on what the client accepts first.
    const payload = JSON.parse(text.startsWith('{') ? text : (/^data: (.+)$/m.exec(text)?.[1] ?? '{}')) as {
      result?: { content?: { text: string }[] };
    };
    expect(payload.result?.content?.[0]?.text).toBe(`${runtime} for owner`);
  });

  it('serves the token broker: the ask of a tool gives a login link whose connect step sends the browser to the provider with PKCE', async () => {
    const { url } = (await (await fetch(`${server.origin}/__ask`)).json()) as { url: string };
    expect(new URL(url).pathname).toBe('/auth/oauth/connect');
    const connect = await fetch(url, { redirect: 'manual' });
    expect(connect.status).toBe(302);
    const provider = new URL(connect.headers.get('location')!);
    expect(`${provider.origin}${provider.pathname}`).toBe('https://acme.example/oauth/authorize');
    expect(provider.searchParams.get('code_challenge_method')).toBe('S256');
    expect(provider.searchParams.get('redirect_uri')).toBe(`${server.origin}/auth/oauth/callback`);
    const forged = await fetch(`${server.origin}/auth/oauth/callback?state=forged&code=x`);
    expect(forged.status).toBe(400);
  });

  it('runs the token vault: opens a value node:crypto sealed, and seals one that Node opens', async () => {
    const answer = await fetch(`${server.origin}/__vault`);
    expect(answer.status).toBe(200);
    const check = (await answer.json()) as { stored: string; sealed: string; roundTrip: string };
    expect(check.stored).toBe('gho_sealed-by-node-crypto/é✓😀 and more than one 16-byte AES block');
    expect(check.roundTrip).toBe('sealed on this runtime');
    const onNode = createLocalVault({
      masterKey: 'a-master-key-of-at-least-32-bytes-long',
      masterKeyId: 'k1',
      scryptCost: 1024,
    });
    expect(
      await onNode.decrypt(check.sealed, {
        tenantId: 'tenant-a',
        userId: 'user-1',
        toolModuleId: 'module-1',
        provider: 'github',
      }),
    ).toBe('sealed on this runtime');
  });

  it('serves the registry API with its ETag and per-IP limit headers', async () => {
    const list = await fetch(`${server.origin}/api/providers`);
    expect(list.status).toBe(200);
    expect(list.headers.get('etag')).toMatch(/^".+"$/);
    const providers = (await list.json()) as Record<string, { id: string }>;
    const [first] = Object.values(providers);
    expect(first).toBeDefined();
    const one = await fetch(`${server.origin}/api/providers/${encodeURIComponent(first!.id)}`);
    expect(((await one.json()) as { id: string }).id).toBe(first!.id);
    const again = await fetch(`${server.origin}/api/providers`, {
      headers: { 'if-none-match': list.headers.get('etag')! },
    });
    expect(again.status).toBe(304);
  });

  it('serves the webhooks it discovered, behind the shared secret', async () => {
    const routes = (await (await fetch(`${server.origin}/__routes`)).json()) as { webhookRoutes: string[] };
    expect(routes.webhookRoutes).toEqual(EXPECTED_ROUTES[runtime]);
    const post = (path: string, body: unknown, secret = WEBHOOK_SECRET) =>
      fetch(`${server.origin}/webhook/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-webhook-secret': secret },
        body: JSON.stringify(body),
      });
    const ping = await post('echo/handlePing', { message: runtime });
    expect(ping.status).toBe(200);
    expect(await ping.json()).toEqual({ ok: true, result: { pong: runtime } });
    expect((await post('echo/handlePing', {}, 'wrong-secret')).status).toBe(401);
    const tagged = await post('echo/events', { type: 'invoice.paid' });
    if (EXPECTED_ROUTES[runtime].includes('echo/events')) {
      expect(await tagged.json()).toEqual({ ok: true, result: { received: 'invoice.paid' } });
    } else {
      expect(tagged.status).toBe(404);
    }
  });
});
