import type { FetchHandler, FetchRequestInfo } from '@keyhold/core';
import { createMcpEndpoint, defineTool } from '@keyhold/mcp';
import { createAuthorizationServer, createMemoryStorage, generateSigningKey } from '@keyhold/oauth-core';
import { createRegistryApi } from '@keyhold/registry-client/server';
import { createLocalVault, createMemoryBrokerStorage, createTokenBroker } from '@keyhold/token-vault';
import { createWebhookHandler, type ReadSource } from '@keyhold/webhook-kit';
import * as z from 'zod';
import { echoModule } from './echo-module.js';

/** What every runtime's server script passes in. */
export interface AppOptions {
  /** The server's own origin, e.g. `http://127.0.0.1:8787` (the issuer is `{baseUrl}/tenant/demo`). */
  readonly baseUrl: string;
  /** The shared secret webhook senders put in `X-Webhook-Secret`. */
  readonly webhookSecret: string;
  /**
   * Where `echo-module.ts` is, so `@webhook` tags are read from it: a file on disk, or on workerd a path
   * that `readSource` answers from the source bundled into the worker.
   */
  readonly moduleSourcePath: string;
  /** Reads module sources where there is no file system (workerd). Default: the file system. */
  readonly readSource?: ReadSource;
}

/** The app, and the webhook routes it discovered at start-up. */
export interface App {
  readonly fetch: FetchHandler;
  readonly webhookRoutes: readonly string[];
}

/**
 * The three areas on one web-standard `fetch`: webhooks under `/webhook/`, the registry API under `/api/`
 * and `/health`, and the authorization server (single-user mode: tenant `demo`'s owner consents without a
 * login) for everything else. `GET /__routes` lists the discovered webhook routes, so the test can see
 * what discovery found on each runtime.
 */
export async function createApp(options: AppOptions): Promise<App> {
  const signingKey = await generateSigningKey('ES256', 'k1');
  const oauth = createAuthorizationServer({
    baseUrl: options.baseUrl,
    tenants: {
      get: (slug) => (slug === 'demo' ? { signingKeys: [signingKey], singleUserId: 'owner' } : undefined),
    },
    storage: createMemoryStorage(),
    singleUserMode: true,
  });
  const registry = createRegistryApi();
  const webhooks = createWebhookHandler({
    modules: [
      {
        toolModuleId: 'echo',
        displayName: 'Echo',
        sourcePath: options.moduleSourcePath,
        instance: echoModule,
      },
    ],
    secret: options.webhookSecret,
    ...(options.readSource === undefined ? {} : { readSource: options.readSource }),
  });
  const webhookRoutes = webhooks.routes.map((route) => route.key);
  // The MCP endpoint the tokens are for, guarded by the authorization server's own verifier.
  const mcp = createMcpEndpoint({
    resource: oauth.protectedResource('demo'),
    serverInfo: { name: 'keyhold-runtimes', version: '1.0.0' },
    toolModules: [
      {
        toolModuleId: 'echo',
        displayName: 'Echo',
        sourcePath: options.moduleSourcePath,
        tools: [
          defineTool({
            name: 'echo',
            inputSchema: z.object({ text: z.string() }),
            handler: ({ text }, context) => ({
              content: [{ type: 'text', text: `${text} for ${context.principal.userId}` }],
            }),
          }),
        ],
      },
    ],
  });
  // The token broker's browser steps; the app is single-user, so the connect step's user is the owner.
  const broker = createTokenBroker({
    baseUrl: options.baseUrl,
    vault: createLocalVault({ masterKey: `${options.webhookSecret}-vault-master-key` }),
    storage: createMemoryBrokerStorage(),
    providers: [
      {
        id: 'acme',
        name: 'Acme',
        authorizationUrl: 'https://acme.example/oauth/authorize',
        tokenUrl: 'https://acme.example/oauth/token',
        scopes: ['read'],
        clientId: 'acme-client',
        clientSecret: 'acme-secret',
      },
    ],
  });
  const fetch = async (request: Request, info?: FetchRequestInfo): Promise<Response> => {
    const path = new URL(request.url).pathname;
    if (path === '/__routes') return Response.json({ webhookRoutes });
    if (path === '/__ask') {
      // What a tool asking for a token gets before the user connected: the login link.
      const outcome = await broker.requestToken(
        { ask: 'oauth', provider: 'acme', scopes: ['read'] },
        { tenantId: 'demo', userId: 'owner', toolModuleId: 'echo' },
      );
      return Response.json(!outcome.ok ? { url: outcome.error.elicitationUrl } : {});
    }
    if (path.startsWith('/auth/oauth/')) return broker.fetch(request, { ...info, userId: 'owner' });
    if (mcp.ownsPath(path) && !oauth.ownsPath(path)) return mcp.fetch(request);
    if (path.startsWith('/webhook/')) return webhooks.fetch(request, info);
    if (path === '/health' || path.startsWith('/api/')) return registry.fetch(request, info);
    return oauth.fetch(request, info);
  };
  return { fetch, webhookRoutes };
}
