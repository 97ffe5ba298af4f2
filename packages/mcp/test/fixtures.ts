import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createManualClock, type ManualClock } from '@keyhold/core';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/server';
import * as z from 'zod';
import {
  type BrokerElicitation,
  createMcpEndpoint,
  defineTool,
  type McpEndpoint,
  type McpEndpointOptions,
  type McpTokenBroker,
  type McpTokenVerifier,
  type McpToolModule,
} from '../src/index.js';
import { toMcpNodeListener } from '../src/node.js';

export const SECRET = 'a-request-state-secret-of-32-bytes-at-least!';
/** A real directory of tool-module sources: claim scopes resolve real paths. */
export const ROOT: string = (() => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'keyhold-mcp-tools-')));
  for (const [dir, file] of [
    ['workspace-a', 'notes.ts'],
    ['workspace-b', 'github.ts'],
  ] as const) {
    mkdirSync(join(root, dir));
    writeFileSync(join(root, dir, file), '// a tool module\n');
  }
  return root;
})();

/** Tokens the fake verifier knows. */
export const TOKENS: Record<string, { sub?: string; scopes: string[]; client: string; machine?: boolean }> = {
  'alice-token': { sub: 'alice', scopes: ['mcp:tools'], client: 'client-a' },
  'bob-token': { sub: 'bob', scopes: ['mcp:tools'], client: 'client-b' },
  // Alice again, through another client she authorized.
  'alice-other-client-token': { sub: 'alice', scopes: ['mcp:tools'], client: 'client-c' },
  'parent-scope-token': { sub: 'carol', scopes: ['mcp'], client: 'client-a' },
  'no-scope-token': { sub: 'dave', scopes: ['profile'], client: 'client-a' },
  'machine-token': { sub: 'client:svc', scopes: ['mcp:tools'], client: 'svc', machine: true },
};

export function fakeVerifier(clock: { now(): number }): McpTokenVerifier {
  return {
    async verifyAccessToken(token) {
      if (token === 'outage-token') throw new Error('database down');
      const known = TOKENS[token];
      if (known === undefined)
        throw Object.assign(new Error('the token is not known'), { code: 'invalid_token' });
      const info: AuthInfo = {
        token,
        clientId: known.client,
        scopes: known.scopes,
        expiresAt: Math.floor(clock.now() / 1000) + 600,
        extra: { sub: known.sub, subjectType: known.machine ? 'client' : 'user', tenantId: 'demo' },
      };
      return info;
    },
  };
}

/** A broker with an in-memory grant list: `authorize` plays the user finishing the browser step. */
export function fakeBroker(): McpTokenBroker & {
  authorize(elicitationUrl: string): void;
  asks: number;
} {
  const granted = new Set<string>();
  const pending = new Map<string, string>();
  let counter = 0;
  const broker = {
    asks: 0,
    async requestToken(
      ask: { provider: string },
      context: { tenantId: string; userId: string; toolModuleId: string },
    ) {
      broker.asks += 1;
      const key = `${context.tenantId}/${context.userId}/${context.toolModuleId}/${ask.provider}`;
      if (granted.has(key)) return { ok: true as const, accessToken: `token-of-${context.userId}` };
      counter += 1;
      const elicitationId = `e${counter}`;
      pending.set(elicitationId, key);
      const error: BrokerElicitation = {
        elicitationUrl: `https://host.example/auth/oauth/connect?elicitation_id=${elicitationId}`,
        elicitationId,
        provider: ask.provider,
        scopes: ['repo'],
        message: `GitHub authorization is needed`,
      };
      return { ok: false as const, error };
    },
    authorize(elicitationUrl: string) {
      const id = new URL(elicitationUrl).searchParams.get('elicitation_id') ?? '';
      const key = pending.get(id);
      if (key !== undefined) granted.add(key);
    },
  };
  return broker;
}

export const notes: McpToolModule = {
  toolModuleId: 'notes',
  displayName: 'Notes',
  sourcePath: `${ROOT}/workspace-a/notes.ts`,
  tools: [
    defineTool({
      name: 'echo',
      inputSchema: z.object({ text: z.string() }),
      handler: ({ text }, context) => ({
        content: [{ type: 'text', text: `${text} (${context.era}, ${context.principal.userId})` }],
      }),
    }),
  ],
};

export const github: McpToolModule = {
  toolModuleId: 'github',
  displayName: 'GitHub',
  sourcePath: `${ROOT}/workspace-b/github.ts`,
  tools: [
    defineTool({
      name: 'list_repos',
      description: 'Lists your repositories (GitHub login the first time).',
      inputSchema: z.object({ owner: z.string() }),
      async *handler({ owner }) {
        const token: string = yield { ask: 'oauth', provider: 'github', scopes: ['repo'] };
        return { content: [{ type: 'text', text: `repos of ${owner} with ${token}` }] };
      },
    }),
  ],
};

export interface TestEndpoint {
  readonly url: string;
  readonly endpoint: McpEndpoint;
  readonly clock: ManualClock;
  readonly broker: ReturnType<typeof fakeBroker>;
  close(): Promise<void>;
}

/** Serves an endpoint on an ephemeral loopback port through the Node entry. */
export async function startEndpoint(
  overrides: (url: string) => Partial<McpEndpointOptions> = () => ({}),
): Promise<TestEndpoint> {
  const clock = createManualClock(Date.now());
  const broker = fakeBroker();
  let listener: ((req: never, res: never) => Promise<void>) | undefined;
  const server: Server = createServer((req, res) => void listener?.(req as never, res as never));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  const endpoint = createMcpEndpoint({
    publicUrl: url,
    serverInfo: { name: 'test-host', version: '1.0.0' },
    toolModules: [notes, github],
    authentication: {
      verifier: fakeVerifier(clock),
      resourceMetadataUrl: `${url.replace('/mcp', '')}/.well-known/oauth-protected-resource/mcp`,
    },
    broker,
    requestStateSecret: SECRET,
    clock,
    ...overrides(url),
  });
  listener = toMcpNodeListener(endpoint) as never;
  return {
    url,
    endpoint,
    clock,
    broker,
    close: async () => {
      await endpoint.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A 2026-07-28 client (SDK v2, pinned), optionally declaring URL elicitation. */
export async function modernClient(
  url: string,
  token: string,
  options: {
    urlElicitation?: boolean;
    headers?: Record<string, string>;
    onElicitation?: (url: string) => void;
    autoFulfill?: boolean;
  } = {},
): Promise<Client> {
  const client = new Client(
    { name: 'modern-test-client', version: '1.0.0' },
    {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      ...(options.urlElicitation === false ? {} : { capabilities: { elicitation: { url: {} } } }),
      ...(options.autoFulfill === false ? { inputRequired: { autoFulfill: false } } : {}),
    },
  );
  if (options.urlElicitation !== false) {
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as { url?: string };
      if (params.url) options.onElicitation?.(params.url);
      return { action: 'accept' };
    });
  }
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      authProvider: { token: async () => token },
      ...(options.headers ? { requestInit: { headers: options.headers } } : {}),
    }),
  );
  return client;
}

/** A 2025-11-25 client (SDK v1), optionally declaring URL elicitation. */
export async function legacyClient(
  url: string,
  token: string,
  options: { urlElicitation?: boolean; headers?: Record<string, string> } = {},
): Promise<ClientV1> {
  const client = new ClientV1(
    { name: 'legacy-test-client', version: '1.0.0' },
    options.urlElicitation === false ? {} : { capabilities: { elicitation: { url: {} } } },
  );
  await client.connect(
    new TransportV1(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}`, ...options.headers } },
    }),
  );
  return client;
}

export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((item) => item.text ?? '').join('\n');
}
