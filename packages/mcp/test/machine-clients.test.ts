import { generateKeyPairSync } from 'node:crypto';
import { createAuthorizationServer, createMemoryStorage, generateSigningKey } from '@keyhold/oauth-core';
import {
  Client as ClientV2,
  ClientCredentialsProvider as CredentialsV2,
  PrivateKeyJwtProvider as PrivateKeyJwtV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import {
  ClientCredentialsProvider as CredentialsV1,
  PrivateKeyJwtProvider as PrivateKeyJwtV1,
} from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { createMcpEndpoint } from '../src/index.js';
import { fakeBroker, github, notes, SECRET } from './fixtures.js';

// A real authorization server (client_credentials) and MCP endpoint, reached in process through the
// SDK clients' `fetch` option; every token request is counted, so a step-up loop shows.
const BASE = 'http://127.0.0.1:8787';
const ISSUER = `${BASE}/tenant/demo`;
const RESOURCE = `${ISSUER}/mcp`;

type Authentication = 'client_secret_basic' | 'private_key_jwt';

async function setup(allowMachineSubjects: boolean, method: Authentication) {
  const server = createAuthorizationServer({
    baseUrl: BASE,
    tenants: { get: async (slug) => (slug === 'demo' ? { signingKeys: [await key] } : undefined) },
    storage: createMemoryStorage(),
  });
  const key = generateSigningKey('ES256', 'k1');
  const endpoint = createMcpEndpoint({
    resource: server.protectedResource('demo', { allowMachineSubjects }),
    serverInfo: { name: 'test-host', version: '1.0.0' },
    toolModules: [notes, github],
    broker: fakeBroker(),
    requestStateSecret: SECRET,
  });
  const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const publicJwk = { ...pair.publicKey.export({ format: 'jwk' }), kid: 'm1', alg: 'ES256', use: 'sig' };
  const client = await server.clients.provision('demo', {
    grantTypes: ['client_credentials'],
    scope: 'mcp:tools',
    ...(method === 'private_key_jwt'
      ? {
          tokenEndpointAuthMethod: 'private_key_jwt',
          tokenEndpointAuthSigningAlg: 'ES256',
          jwks: { keys: [publicJwk] } as never,
        }
      : {}),
  });
  const seen = { tokenRequests: 0, mcpStatuses: [] as number[] };
  const fetchInProcess = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const sent = new Request(input, init);
    // What a socket would carry: an in-process Request has no Host header.
    const headers = new Headers(sent.headers);
    headers.set('host', new URL(sent.url).host);
    const request = new Request(sent, { headers });
    const path = new URL(request.url).pathname;
    if (path === '/tenant/demo/mcp') {
      const response = await endpoint.fetch(request);
      seen.mcpStatuses.push(response.status);
      return response;
    }
    if (path === '/tenant/demo/token') seen.tokenRequests += 1;
    return server.fetch(request);
  };
  return {
    seen,
    fetchInProcess,
    method,
    credentials: { clientId: client.clientId, clientSecret: client.clientSecret ?? '', scope: 'mcp:tools' },
    privateKey: { ...pair.privateKey.export({ format: 'jwk' }), kid: 'm1', alg: 'ES256' },
  };
}

const sdks = {
  'SDK v1 (@modelcontextprotocol/sdk)': async (env: Awaited<ReturnType<typeof setup>>) => {
    const client = new ClientV1({ name: 'machine', version: '1.0.0' });
    const transport = new TransportV1(new URL(RESOURCE), {
      authProvider:
        env.method === 'private_key_jwt'
          ? new PrivateKeyJwtV1({
              clientId: env.credentials.clientId,
              privateKey: env.privateKey,
              algorithm: 'ES256',
              scope: 'mcp:tools',
            })
          : new CredentialsV1(env.credentials),
      fetch: env.fetchInProcess,
    });
    await client.connect(transport);
    try {
      return (await client.listTools()).tools.map((tool) => tool.name);
    } finally {
      await client.close();
    }
  },
  'SDK v2 (@modelcontextprotocol/client)': async (env: Awaited<ReturnType<typeof setup>>) => {
    const client = new ClientV2({ name: 'machine', version: '1.0.0' });
    const transport = new TransportV2(new URL(RESOURCE), {
      authProvider:
        env.method === 'private_key_jwt'
          ? new PrivateKeyJwtV2({
              clientId: env.credentials.clientId,
              privateKey: env.privateKey,
              algorithm: 'ES256',
              scope: 'mcp:tools',
            })
          : new CredentialsV2(env.credentials),
      fetch: env.fetchInProcess,
    });
    await client.connect(transport);
    try {
      return (await client.listTools()).tools.map((tool) => tool.name);
    } finally {
      await client.close();
    }
  },
};

const cases = Object.entries(sdks).flatMap(([sdk, listTools]) =>
  (['client_secret_basic', 'private_key_jwt'] as const).map((method) => [sdk, method, listTools] as const),
);

describe.each(cases)(
  'machine clients with the %s client-credentials provider (%s)',
  (_, method, listTools) => {
    it('stop after one clear refusal (one token, no step-up) where the resource takes users only', async () => {
      const env = await setup(false, method);
      await expect(listTools(env)).rejects.toThrow(/403|machine clients are not accepted/);
      expect(env.seen.tokenRequests).toBe(1);
      expect(env.seen.mcpStatuses.filter((status) => status === 403)).toHaveLength(1);
    });

    it('are served where the host allows machine clients on the resource', async () => {
      const env = await setup(true, method);
      expect((await listTools(env)).length).toBeGreaterThan(0);
      expect(env.seen.tokenRequests).toBe(1);
    });
  },
);
