import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createManualClock, createMemoryRateLimiter, type ManualClock } from '@keyhold/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpError, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { type Claims, createClaims } from '../../src/claims.js';
import {
  createScopedMcpHandler,
  type ScopedMcpHandler,
  type ScopedMcpHandlerOptions,
} from '../../src/mcp/node-handler.js';
import type { ToolModule } from '../../src/mcp/tool-modules.js';
import { createMemoryClaimStore } from '../../src/memory-store.js';
import type { ClaimStore } from '../../src/storage.js';

/** Two tool-module directories, `alpha` and `beta`, plus a module in alpha whose source links into beta. */
export function toolModuleTree(): { root: string; alphaDir: string; betaDir: string; modules: ToolModule[] } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'claim-mcp-')));
  const alphaDir = join(root, 'alpha');
  const betaDir = join(root, 'beta');
  mkdirSync(alphaDir);
  mkdirSync(betaDir);
  writeFileSync(join(alphaDir, 'tools.ts'), '// alpha');
  writeFileSync(join(betaDir, 'tools.ts'), '// beta');
  writeFileSync(join(betaDir, 'sneaky.ts'), '// really in beta');
  symlinkSync(join(betaDir, 'sneaky.ts'), join(alphaDir, 'sneaky.ts'));
  const echo = (prefix: string) => async (args: Record<string, unknown>) => ({
    content: [{ type: 'text' as const, text: `${prefix}:${String(args.text)}` }],
  });
  const modules: ToolModule[] = [
    {
      id: 'alpha',
      name: 'Alpha',
      sourcePath: join(alphaDir, 'tools.ts'),
      tools: [
        {
          name: 'alpha_echo',
          description: 'Echoes',
          inputSchema: z.object({ text: z.string() }),
          handler: echo('alpha'),
        },
        {
          name: 'alpha_fail',
          handler: () => {
            throw new Error('disk on fire');
          },
        },
        {
          name: 'alpha_login',
          handler: () => {
            throw new UrlElicitationRequiredError([
              { mode: 'url', url: 'https://example.com/login', elicitationId: 'e1', message: 'Log in' },
            ]);
          },
        },
      ],
    },
    {
      id: 'beta',
      name: 'Beta',
      sourcePath: join(betaDir, 'tools.ts'),
      tools: [{ name: 'beta_echo', inputSchema: z.object({ text: z.string() }), handler: echo('beta') }],
    },
    {
      id: 'sneaky',
      name: 'Sneaky',
      sourcePath: join(alphaDir, 'sneaky.ts'),
      tools: [{ name: 'sneaky_echo', handler: echo('sneaky') }],
    },
  ];
  return { root, alphaDir, betaDir, modules };
}

export interface TestHost {
  readonly url: string;
  readonly claims: Claims;
  readonly clock: ManualClock;
  readonly alphaDir: string;
  readonly betaDir: string;
  readonly mcp: ScopedMcpHandler;
  close(): Promise<void>;
}

/** A real node:http server serving the claim-scoped MCP endpoint at /mcp. */
export async function startHost(
  options: {
    requireClaimCode?: boolean;
    store?: ClaimStore;
    claims?: Claims;
    /** Turns the guess budget on with a memory limiter on the host's manual clock. */
    claimFailureRateLimit?: { limit: number; windowSeconds: number };
    principalOf?: ScopedMcpHandlerOptions['principalOf'];
  } = {},
): Promise<TestHost> {
  const tree = toolModuleTree();
  const clock = createManualClock();
  const claims = options.claims ?? createClaims({ store: options.store ?? createMemoryClaimStore(), clock });
  const mcp = createScopedMcpHandler({
    claims,
    modules: tree.modules,
    createServer: () => new McpServer({ name: 'claim-test-host', version: '1.0.0' }),
    ...(options.requireClaimCode === undefined ? {} : { requireClaimCode: options.requireClaimCode }),
    ...(options.claimFailureRateLimit === undefined
      ? {}
      : {
          claimFailureRateLimit: {
            limiter: createMemoryRateLimiter(),
            clock,
            ...options.claimFailureRateLimit,
          },
        }),
    ...(options.principalOf === undefined ? {} : { principalOf: options.principalOf }),
  });
  const server = createServer((req, res) => {
    if (!req.url?.startsWith('/mcp')) {
      res.writeHead(404).end();
      return;
    }
    mcp.handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    claims,
    clock,
    alphaDir: tree.alphaDir,
    betaDir: tree.betaDir,
    mcp,
    close: async () => {
      await mcp.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A real SDK client over Streamable HTTP, sending `Mcp-Claim-Code` on every request when given one. */
export async function connectClient(url: string, code?: string): Promise<Client> {
  const client = new Client({ name: 'claim-test-client', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(
    new URL(url),
    code === undefined ? undefined : { requestInit: { headers: { 'Mcp-Claim-Code': code } } },
  );
  await client.connect(transport);
  return client;
}

export async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((tool) => tool.name).sort();
}

/** The JSON-RPC error a tools/call answers with, or `undefined` when it succeeded. */
export async function callError(
  client: Client,
  name: string,
): Promise<{ code: number; message: string } | undefined> {
  try {
    await client.callTool({ name, arguments: { text: 'x' } });
    return undefined;
  } catch (error) {
    if (!(error instanceof McpError)) throw error;
    return { code: error.code, message: error.message };
  }
}
