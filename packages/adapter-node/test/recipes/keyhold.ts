// What every recipe mounts: the authorization server (memory storage, one single-user tenant) composed with
// an MCP endpoint, and the flow a client runs against it over real HTTP.
import { createHash, randomBytes } from 'node:crypto';
import { type Area, compose } from '@keyhold/core';
import { createMcpEndpoint, defineTool, type McpEndpoint } from '@keyhold/mcp';
import { createAuthorizationServer, createMemoryStorage, generateSigningKey } from '@keyhold/oauth-core';
import { expect } from 'vitest';
import * as z from 'zod';

const REDIRECT_URI = 'https://app.example/callback';

/** Keyhold for a host whose public origin is `origin`: one area for the server and its MCP endpoint. */
export async function createKeyhold(origin: string): Promise<{ keyhold: Area; close(): Promise<void> }> {
  const tenant = { signingKeys: [await generateSigningKey('ES256', 'k1')], singleUserId: 'owner' };
  const server = createAuthorizationServer({
    baseUrl: origin,
    singleUserMode: true,
    tenants: { get: (slug) => (slug === 'demo' ? tenant : undefined) },
    storage: createMemoryStorage(),
  });
  const endpoint: McpEndpoint = createMcpEndpoint({
    resource: server.protectedResource('demo'),
    serverInfo: { name: 'recipe', version: '1.0.0' },
    toolModules: [
      {
        toolModuleId: 'notes',
        displayName: 'Notes',
        tools: [
          defineTool({
            name: 'echo',
            inputSchema: z.object({ text: z.string() }),
            handler: ({ text }) => ({ content: [{ type: 'text', text }] }),
          }),
        ],
      },
    ],
  });
  return { keyhold: compose(server, endpoint), close: () => endpoint.close() };
}

/**
 * What a client does, over HTTP: discovery → dynamic registration → authorization (PKCE, single user) →
 * consent → token, then the MCP endpoint: a challenge without a token, `tools/list` with it.
 */
export async function runClientFlow(origin: string): Promise<void> {
  const discovered = await fetch(`${origin}/.well-known/oauth-authorization-server/tenant/demo`);
  expect(discovered.status).toBe(200);
  const as = (await discovered.json()) as Record<string, string>;
  const registered = await fetch(as['registration_endpoint']!, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' }),
  });
  expect(registered.status).toBe(201);
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL(as['authorization_endpoint']!);
  authorize.search = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: REDIRECT_URI,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    scope: 'mcp:tools',
    state: 's',
  }).toString();
  const toConsent = await fetch(authorize, { redirect: 'manual' });
  expect(toConsent.status).toBe(302);
  const consentUrl = new URL(toConsent.headers.get('location')!, authorize);
  const page = await fetch(consentUrl);
  expect(page.status).toBe(200);
  const cookie = (page.headers.get('set-cookie') ?? '').split(';', 1)[0]!;
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(await page.text())![1]!;
  const decided = await fetch(consentUrl.href.split('?')[0]!, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({
      req: consentUrl.searchParams.get('req')!,
      decision: 'approve',
      csrf_token: csrf,
    }),
  });
  expect(decided.status).toBe(302);
  const code = new URL(decided.headers.get('location')!).searchParams.get('code')!;
  const token = await fetch(as['token_endpoint']!, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT_URI,
      client_id: clientId,
    }),
  });
  expect(token.status).toBe(200);
  const { access_token: accessToken } = (await token.json()) as { access_token: string };

  const mcpUrl = `${origin}/tenant/demo/mcp`;
  const listTools = (headers: Record<string, string>) =>
    fetch(mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
  const challenged = await listTools({});
  expect(challenged.status).toBe(401);
  expect(challenged.headers.get('www-authenticate')).toContain(
    `resource_metadata="${origin}/.well-known/oauth-protected-resource/tenant/demo/mcp"`,
  );
  await challenged.body?.cancel();
  const metadata = await fetch(`${origin}/.well-known/oauth-protected-resource/tenant/demo/mcp`);
  expect(metadata.status).toBe(200);
  expect(await metadata.json()).toMatchObject({ resource: mcpUrl });
  const listed = await listTools({ authorization: `Bearer ${accessToken}` });
  expect(listed.status).toBe(200);
  expect(await listed.text()).toContain('"name":"echo"');
}
