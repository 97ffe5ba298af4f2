import { OAuthError } from './errors.js';
import type { ServerContext } from './options.js';
import { RateLimitedError } from './rate-limits.js';
import { parseScope } from './scopes.js';
import type { ClientType, TokenEndpointAuthMethod } from './storage.js';
import type { Tenant } from './tenant.js';

/** A client as the handlers see it, whichever way it arrived. */
export interface ResolvedClient {
  readonly clientId: string;
  readonly clientType: ClientType;
  readonly name: string;
  /** The host shown on the consent screen: the metadata document's host, or the client_uri's. */
  readonly host?: string;
  readonly redirectUris: readonly string[];
  readonly grantTypes: readonly string[];
  readonly authMethod: TokenEndpointAuthMethod;
  readonly secretHash?: string;
  /** The scopes the client registered; `undefined` means no restriction beyond the tenant's. */
  readonly scopes?: readonly string[];
  /** The exact audiences the client may ask a token exchange for; absent: no token exchange. */
  readonly tokenExchangeAudiences?: readonly string[];
  /** For dynamic registered clients: when they expire unless used (epoch ms). */
  readonly expiresAt?: number;
  /** Registered clients only: whether the client expires when unused. */
  readonly expiresWhenUnused?: boolean;
}

/** Renewal on use writes at most this often per client, so the hot path rarely writes. */
const RENEWAL_GRANULARITY_MS = 86_400_000;

/**
 * Pushes a dynamic client's expiry to `now + unusedClientTtl` when it was last pushed more than about a
 * day ago (or never, for records from before expiry existed). Call it once the client has been used
 * successfully (authenticated at the token endpoint, or accepted at `/authorize`).
 */
export async function renewClientOnUse(
  context: ServerContext,
  tenant: Tenant,
  client: ResolvedClient,
): Promise<void> {
  if (client.clientType !== 'registered' || client.expiresWhenUnused !== true) return;
  const now = context.clock.now();
  const granularity = Math.min(RENEWAL_GRANULARITY_MS, Math.floor(context.unusedClientTtlMs / 2));
  const renewed = now + context.unusedClientTtlMs;
  if (client.expiresAt !== undefined && renewed - client.expiresAt < granularity) return;
  await context.storage.clients.touch(tenant.slug, client.clientId, renewed);
}

/**
 * Whether a client_id names a Client ID Metadata Document: an `https` URL with a path. A URL that fails
 * these rules is still looked up in the registry, where it will not be found.
 */
export function isMetadataDocumentClientId(clientId: string): boolean {
  if (!clientId.startsWith('https://')) return false;
  try {
    const url = new URL(clientId);
    return url.protocol === 'https:' && url.pathname !== '/' && url.pathname !== '';
  } catch {
    return false;
  }
}

function hostOf(uri: string | undefined): string | undefined {
  if (uri === undefined) return undefined;
  try {
    return new URL(uri).host || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Finds a client: through the CIMD resolver for `https` ids, through the registry otherwise.
 * Throws `invalid_client` when it cannot be used.
 */
export async function resolveClient(
  context: ServerContext,
  tenant: Tenant,
  clientId: string,
): Promise<ResolvedClient> {
  if (clientId.length > 2048) throw new OAuthError('invalid_client', 'client_id is too long');
  if (isMetadataDocumentClientId(clientId)) {
    if (!context.cimdResolver) {
      throw new OAuthError('invalid_client', 'this server does not accept metadata-document client ids');
    }
    const resolution = await context.cimdResolver.resolve(clientId, {
      allowedDomains: tenant.config.allowedCimdDomains ?? [],
    });
    if (!resolution.ok) {
      context.logger.warn(
        { tenant: tenant.slug, clientId, cimdError: resolution.error, detail: resolution.detail },
        'client metadata document refused',
      );
      if (resolution.error === 'fetch_rate_limited') {
        // Not the client's fault and not a bad client: the document host's fetch budget is spent for now.
        throw new RateLimitedError(resolution.description, resolution.retryAfterSeconds ?? 1);
      }
      throw new OAuthError('invalid_client', resolution.description);
    }
    const document = resolution.document;
    const method = document.token_endpoint_auth_method ?? 'none';
    if (method !== 'none') {
      throw new OAuthError(
        'invalid_client',
        `metadata-document clients must use token_endpoint_auth_method "none", not "${method}"`,
      );
    }
    const scopes = document.scope === undefined ? undefined : parseScope(document.scope);
    return {
      clientId,
      clientType: 'metadata_document',
      name: document.client_name,
      host: new URL(clientId).host,
      redirectUris: document.redirect_uris,
      grantTypes: document.grant_types ?? ['authorization_code', 'refresh_token'],
      authMethod: 'none',
      ...(scopes ? { scopes } : {}),
    };
  }
  const record = await context.storage.clients.get(tenant.slug, clientId);
  // An expired client is unknown: the sweeper deletes it later, nothing may use it now.
  if (!record || (record.expiresAt !== undefined && record.expiresAt <= context.clock.now())) {
    throw new OAuthError('invalid_client', 'unknown client');
  }
  const host = hostOf(record.clientUri);
  const scopes = record.scope === undefined ? undefined : parseScope(record.scope);
  return {
    clientId,
    clientType: 'registered',
    name: record.clientName ?? clientId,
    ...(host ? { host } : {}),
    redirectUris: record.redirectUris,
    grantTypes: record.grantTypes,
    authMethod: record.tokenEndpointAuthMethod,
    ...(record.clientSecretHash ? { secretHash: record.clientSecretHash } : {}),
    ...(scopes ? { scopes } : {}),
    ...(record.tokenExchangeAudiences ? { tokenExchangeAudiences: record.tokenExchangeAudiences } : {}),
    ...(record.expiresAt === undefined ? {} : { expiresAt: record.expiresAt }),
    expiresWhenUnused: record.registration !== 'provisioned',
  };
}
