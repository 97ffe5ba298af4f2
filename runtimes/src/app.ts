import type { Area, FetchHandler, FetchRequestInfo } from '@keyhold/core';
import { compose } from '@keyhold/core';
import { createMcpEndpoint, defineTool } from '@keyhold/mcp';
import { createAuthorizationServer, createMemoryStorage, generateSigningKey } from '@keyhold/oauth-core';
import { createRegistryApi } from '@keyhold/registry-client/server';
import { createLocalVault, createMemoryBrokerStorage, createTokenBroker } from '@keyhold/token-vault';
import { createWebhookHandler, type ReadSource } from '@keyhold/webhook-kit';
import * as z from 'zod';
import { echoModule } from './echo-module.js';

// A value sealed by the token vault's node:crypto implementation (packages/token-vault/test/vault/
// stored-format.test.ts keeps it too): every runtime must still open it, and seal values Node opens.
const VAULT_MASTER_KEY = 'a-master-key-of-at-least-32-bytes-long';
const SEALED_BY_NODE_CRYPTO =
  'v1.k1.feGpGeq1r0ebzF8KvxPrJvX5zGolv953Vsuf+d1psE/QXxcVtRJD4D9kd+Z+tFujwhQ1AAa7ZvJHBtVtK1v6UAt+ZNwJzaBpCeV/csu73aHxXeFMXVVjkAOwak5syg6bM1m0';
const VAULT_BINDING = {
  tenantId: 'tenant-a',
  userId: 'user-1',
  toolModuleId: 'module-1',
  provider: 'github',
};

/** Opens the stored value and seals a new one with the runtime's vault (scrypt cost 1024). */
async function vaultCheck(): Promise<{ stored: string; sealed: string; roundTrip: string }> {
  const vault = createLocalVault({ masterKey: VAULT_MASTER_KEY, masterKeyId: 'k1', scryptCost: 1024 });
  const sealed = await vault.encrypt('sealed on this runtime', VAULT_BINDING);
  return {
    stored: await vault.decrypt(SEALED_BY_NODE_CRYPTO, VAULT_BINDING),
    sealed,
    roundTrip: await vault.decrypt(sealed, VAULT_BINDING),
  };
}

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
 * The areas on one web-standard `fetch` (`compose`): the authorization server (single-user mode: tenant
 * `demo`'s owner consents without a login), the broker's browser steps, webhooks under `/webhook/`, the
 * registry API under `/api/` and `/health`; anything else is 404. `GET /__routes` lists the discovered webhook routes, so the test can see
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
  // What the runtime test reads: the routes discovery found, what a tool asking for a token gets before
  // the user connected (the login link), and what the local vault makes of a stored value and a new one.
  const testRoutes: Area = {
    ownsPath: (pathname) => pathname === '/__routes' || pathname === '/__ask' || pathname === '/__vault',
    async fetch(request) {
      if (new URL(request.url).pathname === '/__routes') return Response.json({ webhookRoutes });
      if (new URL(request.url).pathname === '/__vault') return Response.json(await vaultCheck());
      const outcome = await broker.requestToken(
        { ask: 'oauth', provider: 'acme', scopes: ['read'] },
        { tenantId: 'demo', userId: 'owner', toolModuleId: 'echo' },
      );
      return Response.json(!outcome.ok ? { url: outcome.error.elicitationUrl } : {});
    },
  };
  // The app is single-user, so the broker's connect step's user is the owner.
  const ownersBroker: Area = {
    ownsPath: broker.ownsPath,
    fetch: (request, info) => broker.fetch(request, { ...info, userId: 'owner' }),
  };
  // First owner wins: the authorization server serves the resource's metadata, the endpoint its resource path.
  const keyhold = compose(oauth, mcp, ownersBroker, webhooks, registry, testRoutes);
  const fetch = (request: Request, info?: FetchRequestInfo): Promise<Response> =>
    keyhold.fetch(request, info);
  return { fetch, webhookRoutes };
}
