// What every recipe mounts: the authorization server (memory storage, one single-user tenant) composed with
// an MCP endpoint, and the flow a client runs against it over real HTTP.
import { type Area, compose } from '@keyhold/core';
import { createMcpEndpoint, defineTool, type McpEndpoint } from '@keyhold/mcp';
import { createAuthorizationServer, createMemoryStorage, generateSigningKey } from '@keyhold/oauth-core';
import { expect } from 'vitest';
import * as z from 'zod';
import { singleUserToken } from '../../../../test-support/single-user-token.js';

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
  const { accessToken } = await singleUserToken(
    `${origin}/.well-known/oauth-authorization-server/tenant/demo`,
  );

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
