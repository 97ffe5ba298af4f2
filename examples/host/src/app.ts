import type { IncomingMessage, ServerResponse } from 'node:http';
import { toNodeListener } from '@keyhold/adapter-node';
import { createClaimAttemptGate, createClaims } from '@keyhold/claim-codes';
import { createFileClaimStore, isFileInScope } from '@keyhold/claim-codes/node';
import type { Logger } from '@keyhold/core';
import { compose, createMemoryRateLimiter, systemClock } from '@keyhold/core';
import { createMcpEndpoint } from '@keyhold/mcp';
import {
  type AuthorizationServer,
  type ClientAdministration,
  type ClientProvisionInput,
  createAuthorizationServer,
  createStaticTenants,
  OAuthCoreError,
  type TenantConfig,
} from '@keyhold/oauth-core';
import { createRegistryApi } from '@keyhold/registry-client/server';
import { createLocalVault, createTokenBroker } from '@keyhold/token-vault';
import { createWebhookHandler } from '@keyhold/webhook-kit';
import { timelineEntry } from './broker-events.js';
import type { HostConfig } from './config.js';
import { createHostRoutes } from './host-routes.js';
import { openPostgresHostState, openSqliteHostRecords } from './host-state.js';
import { createDevLogin } from './login-page.js';
import { loopbackTwins } from './loopback.js';
import { withRequestTimeout } from './request-timeout.js';
import { loadSecrets } from './secrets.js';
import { createSessionCookies } from './session.js';
import { loadSigningKeys } from './signing-keys.js';
import { type HostStorage, openHostStorage } from './storage.js';
import { createToolInstances, hostToolModules } from './tool-modules.js';
import { readTrustPolicies } from './trust-policies.js';
import { exampleUserClaims } from './user-profile.js';

/** The assembled host: a `node:http` listener and what must be closed on shutdown. */
export interface HostApp {
  readonly listener: (request: IncomingMessage, response: ServerResponse) => void;
  readonly oauth: AuthorizationServer;
  close(): Promise<void>;
}

/** Options of {@link createHostApp}. */
export interface HostAppOptions {
  readonly config: HostConfig;
  /** The environment: secrets and signing keys given there win, and are never written anywhere. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The URL clients reach the host at (issuer base). */
  readonly baseUrl: string;
  /** The folder holding `tools/` (the host package root). */
  readonly hostRoot: string;
  readonly logger: Logger;
}

/** How long `/health/ready` waits for each store. */
const READINESS_TIMEOUT_MS = 1000;

/**
 * The timeline's bounds, given to the authorization server; the broker's events join that timeline through
 * `oauth.recordEvent`, so they keep the same bounds.
 */
const TIMELINE = {
  maxEventsPerTenant: 10_000,
  maxAnonymousEventsPerTenant: 1_000,
  retentionSeconds: 30 * 86_400,
} as const;

/** The confidential client the host uses at its own provider tenant to broker third-party tokens. */
export const PROVIDER_CLIENT_ID = 'keyhold-host';

/** Assembles every Keyhold package into one host. */
export async function createHostApp(options: HostAppOptions): Promise<HostApp> {
  const stores = await openHostStorage(options.config, options.logger);
  try {
    return await assemble(options, stores);
  } catch (error) {
    // A broken key or an unreachable store stops the start: close what was opened, then let main report it.
    await stores.close().catch(() => {});
    throw error;
  }
}

async function assemble(options: HostAppOptions, stores: HostStorage): Promise<HostApp> {
  const { config, env, baseUrl, hostRoot, logger } = options;
  const clock = systemClock;
  // Secrets and signing keys are generated once and shared: with PostgreSQL they live in the database (no
  // shared filesystem needed), else in the data directory, created only if absent (the first start wins).
  // The tool modules' records (notes, push events) go to the same database.
  const { database } = stores;
  const { state, records } =
    'postgres' in database
      ? await openPostgresHostState(database.postgres)
      : { state: undefined, records: openSqliteHostRecords(database.sqlite) };
  const secrets = await loadSecrets(config.dataDir, env, state);
  if (state && !env['KEYHOLD_VAULT_MASTER_KEY']) {
    logger.warn(
      { secret: 'vaultMasterKey', keptIn: 'postgres' },
      'the vault master key is kept in the database, next to the grants it encrypts: give KEYHOLD_VAULT_MASTER_KEY from a secret manager in production',
    );
  }
  const keys = await loadSigningKeys(
    config.dataDir,
    [config.tenant, config.providerTenant, ...(config.confidentialTenant ? [config.confidentialTenant] : [])],
    { env, ...(state ? { state } : {}) },
  );

  const tenantConfigs: Record<string, TenantConfig> = {
    [config.tenant]: {
      signingKeys: keys[config.tenant]!,
      singleUserId: config.ownerUserId,
      allowedCimdDomains: config.cimdDomains,
      scopesSupported: ['openid', 'profile', 'mcp:tools', 'offline_access'],
    },
    [config.providerTenant]: {
      signingKeys: keys[config.providerTenant]!,
      singleUserId: config.ownerUserId,
      firstPartyClientIds: [PROVIDER_CLIENT_ID],
      scopesSupported: ['openid', 'profile'],
      // The provider tenant plays a third-party identity provider: it serves no MCP resource of its own.
      resourceScopes: [],
    },
  };
  if (config.confidentialTenant !== undefined) {
    // Like demo, but without public clients: the metadata advertises no `none`, so every client (the
    // conformance suite's included) must authenticate with a secret in a Basic header or a signed assertion.
    // `client_secret_post` is left out too: Keyhold refuses it on authorization_code (oauth-core README).
    tenantConfigs[config.confidentialTenant] = {
      signingKeys: keys[config.confidentialTenant]!,
      singleUserId: config.ownerUserId,
      allowedCimdDomains: config.cimdDomains,
      scopesSupported: ['openid', 'profile', 'mcp:tools', 'offline_access'],
      tokenEndpointAuthMethods: ['client_secret_basic', 'private_key_jwt'],
    };
  }
  // Enterprise IdPs whose ID-JAGs a tenant redeems (jwt-bearer grant), from the KEYHOLD_TRUST_POLICIES file.
  const trust = readTrustPolicies(env, process.cwd(), Object.keys(tenantConfigs));
  for (const [slug, policy] of Object.entries(trust)) {
    tenantConfigs[slug] = {
      ...tenantConfigs[slug]!,
      enterpriseIssuers: policy.enterpriseIssuers,
      workloads: policy.workloads,
    };
  }
  // Checked here, before anything is served: a broken key (in signing-keys.json, the database or
  // KEYHOLD_SIGNING_JWKS) stops the start with a message naming the tenant and the key, instead of a 500
  // on the tenant's first request. Only the record's own entries are tenants, so a slug such as
  // `constructor` is unknown rather than a prototype member.
  const tenants = createStaticTenants(tenantConfigs);

  const storage = stores.oauth;
  // One counter store for every limit: Redis when configured (shared by instances), else this process's memory.
  const limiter = stores.rateLimiter ?? createMemoryRateLimiter();
  const limits = config.rateLimits;
  logger.info({ rateLimits: limits ? (stores.rateLimiter ? 'redis' : 'memory') : 'off' }, 'rate limits');
  const rewrite = config.cimdDevRewrite;
  const oauth = createAuthorizationServer({
    baseUrl,
    tenants,
    storage,
    clock,
    logger,
    // Metadata-document clients from the tenants' allowed domains, fetched through the SSRF-safe fetch; in
    // development KEYHOLD_CIMD_DEV_REWRITE sends one https prefix to a local http server instead.
    cimd: {
      ...(rewrite
        ? {
            fetch: (url, init, safeFetch) =>
              url.startsWith(`${rewrite.from}/`)
                ? fetch(rewrite.to + url.slice(rewrite.from.length), { ...init, redirect: 'manual' })
                : safeFetch(url, init),
          }
        : {}),
      ...(limits?.cimdFetches ? { fetchRateLimit: { limiter, ...limits.cimdFetches } } : {}),
    },
    // DPoP (RFC 9449) with server nonces: proofs are checked and their jti spent through the stores' spend-once
    // store; the nonce secret is one of the shared secrets, so every instance accepts every other's nonces.
    dpop: { nonceSecret: secrets.dpopNonceSecret },
    singleUserMode: config.singleUser,
    accessTokenTtlSeconds: config.accessTokenTtlSeconds,
    clientCacheTtlSeconds: config.clientCacheTtlSeconds,
    ...(limits
      ? {
          rateLimits: {
            limiter,
            register: limits.register ?? false,
            authorize: limits.authorize ?? false,
            token: limits.token ?? false,
            consent: limits.consent ?? false,
          },
        }
      : {}),
    // Registration from a browser page is refused unless its origin is listed (KEYHOLD_ALLOWED_ORIGINS).
    allowedOrigins: config.allowedOrigins,
    // OpenID userinfo and id_token claims (profile scope) for the host's users.
    userClaims: exampleUserClaims,
    // The decision timeline lives in the storage's `events` store (`keyhold events`, connected apps).
    events: TIMELINE,
  });

  const sessions = createSessionCookies(secrets.sessionSecret, { secure: baseUrl.startsWith('https:') });
  const devLogin = createDevLogin({ baseUrl, sessions, now: () => clock.now() });

  // The provider tenant knows the host as a confidential, first-party client.
  await ensureProviderClient(oauth.clients, config.providerTenant, {
    clientId: PROVIDER_CLIENT_ID,
    clientSecret: secrets.providerClientSecret,
    clientName: 'Keyhold example host',
    redirectUris: [`${baseUrl}/auth/oauth/callback`],
    grantTypes: ['authorization_code', 'refresh_token'],
    tokenEndpointAuthMethod: 'client_secret_basic',
    scope: 'openid profile',
  });
  const providerIssuer = `${baseUrl}/tenant/${config.providerTenant}`;
  const broker = createTokenBroker({
    baseUrl,
    vault: createLocalVault({ masterKey: Buffer.from(secrets.vaultMasterKey, 'base64') }),
    storage: stores.vault,
    providers: [
      {
        id: 'demo-provider',
        name: 'Demo provider (a second tenant of this host)',
        authorizationUrl: `${providerIssuer}/authorize`,
        tokenUrl: `${providerIssuer}/token`,
        scopes: ['profile'],
        clientId: PROVIDER_CLIENT_ID,
        clientSecret: secrets.providerClientSecret,
        tokenEndpointAuthMethod: 'client_secret_basic',
      },
    ],
    // Brokered logins join the authorization server's timeline: same store, same bounds, so a person's
    // `keyhold events --user` and connected-apps activity show them beside their consents.
    events: { onEvent: (event) => oauth.recordEvent(timelineEntry(event, config.tenant)) },
    clock,
    logger,
  });

  const instances = createToolInstances(records);
  const toolModules = hostToolModules(hostRoot, instances);
  const claims = createClaims({
    // With PostgreSQL the codes live in the database, where `keyhold claim` (with DATABASE_URL) puts them
    // and every instance reads them; on one machine, in the data directory's claims.json.
    store: 'postgres' in database ? stores.claims : createFileClaimStore({ dataDir: config.dataDir, logger }),
    clock,
    logger,
  });
  // Claim-code guesses are limited per user (the token's subject), counted before any lookup.
  const claimGate = limits?.claimFailures
    ? createClaimAttemptGate(claims, { limiter, clock, ...limits.claimFailures })
    : undefined;
  const mcp = createMcpEndpoint({
    // The tenant describes its resource: URL, metadata, realm, and the bearer policy (its resourceScopes are
    // required; machine tokens — a client for itself (client_credentials) or a workload with its own JWT —
    // are refused with 403 unless KEYHOLD_MACHINE_CLIENTS=1).
    resource: oauth.protectedResource(config.tenant, { allowMachineSubjects: config.machineClients }),
    serverInfo: { name: 'keyhold-example-host', version: '0.0.0' },
    toolModules,
    // The specification's default: a code that is not valid is served like no code (README: `onInvalid`).
    claimCodes: {
      claims: claimGate?.claims ?? claims,
      ...(claimGate ? { attempts: claimGate } : {}),
      isInScope: isFileInScope,
    },
    broker,
    requestStateSecret: secrets.mcpStateSecret,
    onceStore: stores.onceStore,
    // Entries may be URLs: the base URL's host (default port explicit), its loopback twins, the configured extras.
    allowedHosts: [baseUrl, ...loopbackTwins(baseUrl), ...config.allowedHosts],
    allowedOrigins: [new URL(baseUrl).origin, ...config.allowedOrigins],
    clock,
    logger,
  });

  const webhooks = createWebhookHandler({
    // The same tool modules MCP serves; the toolModuleId is the URL segment: /webhook/notes/…, /webhook/activity/….
    modules: toolModules,
    secret: config.webhookSecret,
    onceStore: stores.onceStore,
    clock,
    logger,
  });
  // Serves the providers file bundled with @keyhold/registry-client (its default `providers`).
  const registry = createRegistryApi({
    rateLimiter: limiter,
    clock,
    logger,
  });

  const hostRoutes = createHostRoutes({
    login: devLogin,
    checkReadiness: () => stores.checkReadiness(READINESS_TIMEOUT_MS),
  });
  // Every area the host mounts, one `fetch`: a path goes to the first area that owns it, anything else is 404.
  // The authorization server comes first: it serves the MCP resource's metadata; the endpoint, its path (and
  // it checks Host and Origin, the bearer token and the claim code on every request itself).
  const keyhold = compose(oauth, mcp, broker, webhooks, registry, hostRoutes);

  // Behind listed proxies the client is the first untrusted X-Forwarded-For hop, for every rate limit.
  const trustedProxies = new Set(config.trustedProxies);
  const trustProxy = trustedProxies.size > 0 ? (address: string) => trustedProxies.has(address) : undefined;
  const nodeOptions = {
    logger,
    ...(trustProxy ? { trustProxy } : {}),
    // Asked only by the endpoints that use a user (authorize, consent, the broker's steps): a token request
    // never pays for the session cookie's HMAC.
    userId: (request: IncomingMessage) => {
      // Single-user mode: every browser is the tenant owner, as /authorize assumes.
      if (config.singleUser) return config.ownerUserId;
      const cookie = request.headers.cookie;
      return sessions.read(typeof cookie === 'string' ? cookie : undefined, clock.now());
    },
  };
  const listener = toNodeListener(keyhold, nodeOptions);
  return {
    oauth,
    listener: withRequestTimeout(listener, { timeoutMs: config.requestTimeoutMs, logger }),
    close: async () => {
      await mcp.close();
      await stores.close();
    },
  };
}

/**
 * Provisions the host's client at the provider tenant. Instances starting at once all provision it: the same
 * client again is answered as stored. A stale client under the id (another callback URL, or a rotated
 * secret) is a conflict: it is removed and provisioned anew, a few times at most while instances race.
 */
async function ensureProviderClient(
  clients: ClientAdministration,
  tenant: string,
  wanted: ClientProvisionInput & { readonly clientId: string },
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await clients.provision(tenant, wanted);
      return;
    } catch (error) {
      const stale = error instanceof OAuthCoreError && error.code === 'ERR_CLIENT_EXISTS';
      if (!stale || attempt >= 3) throw error;
      await clients.remove(tenant, wanted.clientId);
    }
  }
}
