import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toNodeListener } from '@keyhold/adapter-node';
import { createManualClock, type ManualClock, StorageUnavailableError } from '@keyhold/core';
import {
  type AuthorizationServer,
  createAuthorizationServer,
  createMemoryStorage,
  createStaticTenants,
  type ProtectedResource,
} from '@keyhold/oauth-core';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as z from 'zod';
import {
  type BrokerElicitation,
  createMcpEndpoint,
  defineTool,
  type McpEndpoint,
  type McpEndpointOptions,
  type McpTokenBroker,
  type McpToolModule,
} from '../src/index.js';

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
  'files-token': { sub: 'frank', scopes: ['files:read'], client: 'client-a' },
  'machine-token': { sub: 'client:svc', scopes: ['mcp:tools'], client: 'svc', machine: true },
};

const KEY_SECRET = new Uint8Array(32).fill(7);
const ISSUER_BASE = 'http://127.0.0.1:8787';

function base64url(value: string | Uint8Array): string {
  return Buffer.from(value).toString('base64url');
}

/** An HS256 access token as the test tenant's authorization server signs them. */
export function signTestToken(claims: Record<string, unknown>): string {
  const header = base64url(JSON.stringify({ alg: 'HS256', typ: 'at+jwt', kid: 'test-key' }));
  const payload = base64url(JSON.stringify(claims));
  const signature = createHmac('sha256', KEY_SECRET).update(`${header}.${payload}`).digest('base64url');
  return `${header}.${payload}.${signature}`;
}

/** Options of {@link testAuthorizationServer}. */
export interface TestServerOptions {
  readonly resourceScopes?: readonly string[];
  /** Tokens whose revocation check meets a storage outage (503). */
  readonly outageTokens?: readonly string[];
  /** More tenants signing with the same key, with their resource scopes. */
  readonly extraTenants?: Record<string, { readonly resourceScopes?: readonly string[] }>;
}

/**
 * A real authorization server (oauth-core) with one tenant, `demo`, whose key the tests sign with: every
 * rule of the bearer policy the endpoint applies is oauth-core's.
 */
export function testAuthorizationServer(
  clock: { now(): number },
  options: TestServerOptions = {},
): AuthorizationServer {
  const storage = createMemoryStorage();
  const outage = new Set(options.outageTokens ?? []);
  const revoked = storage.revokedAccessTokens;
  return createAuthorizationServer({
    baseUrl: ISSUER_BASE,
    tenants: createStaticTenants({
      demo: {
        signingKeys: [{ kid: 'test-key', alg: 'HS256', secret: KEY_SECRET }],
        singleUserId: 'owner',
        ...(options.resourceScopes ? { resourceScopes: options.resourceScopes } : {}),
      },
      ...Object.fromEntries(
        Object.entries(options.extraTenants ?? {}).map(([slug, extra]) => [
          slug,
          {
            signingKeys: [{ kid: 'test-key', alg: 'HS256' as const, secret: KEY_SECRET }],
            singleUserId: 'owner',
            ...extra,
          },
        ]),
      ),
    }),
    storage: {
      ...storage,
      revokedAccessTokens: {
        ...revoked,
        isRevoked: async (tenant, jti, now) => {
          if (outage.has(jti)) throw new StorageUnavailableError('postgres', { retryAfterSeconds: 3 });
          return revoked.isRevoked(tenant, jti, now);
        },
        revoke: (...args: Parameters<typeof revoked.revoke>) => revoked.revoke(...args),
      },
    },
    clock: { now: () => clock.now() },
  });
}

/**
 * The `demo` tenant's resource at `url` with the opaque test token names of {@link TOKENS} standing for
 * real tokens signed on first use (so a clock moved past their expiry expires them). `outage-token` meets
 * a storage outage while it is checked.
 */
export function testResource(
  clock: { now(): number },
  url: string,
  options: TestServerOptions & { readonly allowMachineSubjects?: boolean } = {},
): ProtectedResource {
  const server = testAuthorizationServer(clock, {
    ...options,
    outageTokens: ['outage-token', ...(options.outageTokens ?? [])],
  });
  const resource = server.protectedResource('demo', {
    url,
    ...(options.allowMachineSubjects ? { allowMachineSubjects: true } : {}),
  });
  const minted = new Map<string, string>();
  const tokenFor = (name: string): string => {
    const known =
      name === 'outage-token' ? { sub: 'erin', scopes: ['mcp:tools'], client: 'client-a' } : TOKENS[name];
    if (known === undefined) return name;
    let token = minted.get(name);
    if (token === undefined) {
      const now = Math.floor(clock.now() / 1000);
      token = signTestToken({
        iss: `${ISSUER_BASE}/tenant/demo`,
        sub: known.sub ?? `client:${known.client}`,
        aud: resource.url,
        client_id: known.client,
        scope: known.scopes.join(' '),
        jti: name,
        iat: now,
        exp: now + 600,
      });
      minted.set(name, token);
    }
    return token;
  };
  return {
    ...resource,
    metadata: () => resource.metadata(),
    verify: (authorization) =>
      resource.verify(
        authorization?.replace(/^Bearer (\S+)$/i, (_, name: string) => `Bearer ${tokenFor(name)}`),
      ),
  };
}

/** A broker with an in-memory grant list: `authorize` plays the user finishing the browser step. */
export function fakeBroker(): McpTokenBroker & {
  authorize(elicitationUrl: string): void;
  asks: number;
  /** The context of each ask, in order. */
  contexts: Parameters<McpTokenBroker['requestToken']>[1][];
} {
  const granted = new Set<string>();
  const pending = new Map<string, string>();
  let counter = 0;
  const broker = {
    asks: 0,
    contexts: [] as Parameters<McpTokenBroker['requestToken']>[1][],
    async requestToken(ask: { provider: string }, context: Parameters<McpTokenBroker['requestToken']>[1]) {
      broker.asks += 1;
      broker.contexts.push(context);
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
    resource: testResource(clock, url),
    serverInfo: { name: 'test-host', version: '1.0.0' },
    toolModules: [notes, github],
    broker,
    requestStateSecret: SECRET,
    clock,
    ...overrides(url),
  });
  listener = toNodeListener(endpoint) as never;
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
