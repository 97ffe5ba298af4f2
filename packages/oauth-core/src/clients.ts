import { isMetadataDocumentClientId } from './cimd/client-id-url.js';
import type { ClientMetadataDocument } from './cimd/types.js';
import { CLIENT_ASSERTION_ALGORITHMS } from './client-keys.js';
import { OAuthError } from './errors.js';
import type { ServerContext } from './options.js';
import { RateLimitedError } from './rate-limits.js';
import { inferApplicationType } from './redirect-uri.js';
import { parseScope } from './scopes.js';
import type { ApplicationType, ClientJwks, ClientType, TokenEndpointAuthMethod } from './storage.js';
import type { Tenant } from './tenant.js';
import { assertTenantAcceptsAuthMethod } from './tenant.js';

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
  /** `private_key_jwt` clients: where their keys are published. */
  readonly jwksUri?: string;
  /** `private_key_jwt` clients: their keys by value. */
  readonly jwks?: ClientJwks;
  /** The one assertion algorithm the client declared (`token_endpoint_auth_signing_alg`), if any. */
  readonly signingAlg?: string;
  /** Stated by the client, or inferred from its redirect URIs. */
  readonly applicationType: ApplicationType;
}

/**
 * The methods a metadata-document client may end up with, best first: a signed assertion proves the client,
 * `none` only names it.
 */
const DOCUMENT_METHOD_PREFERENCE = ['private_key_jwt', 'none'] as const;

/**
 * Picks the authentication method of a metadata-document client: from its `token_endpoint_auth_method`, or
 * else from its `token_endpoint_auth_methods_supported` (ChatGPT's shape), or else `none`; the best the server
 * supports wins (`private_key_jwt` when the server offers it and the document publishes keys, else `none`).
 * Throws `invalid_client` when nothing fits.
 */
export function negotiateDocumentAuthMethod(
  document: ClientMetadataDocument,
  privateKeyJwtOffered: boolean,
  tenantAccepts: (method: TokenEndpointAuthMethod) => boolean = () => true,
): 'none' | 'private_key_jwt' {
  const listed =
    document.token_endpoint_auth_method !== undefined
      ? [document.token_endpoint_auth_method]
      : (document.token_endpoint_auth_methods_supported ?? ['none']);
  const hasKeys = document.jwks_uri !== undefined || document.jwks !== undefined;
  const alg = document.token_endpoint_auth_signing_alg;
  const algAccepted = alg === undefined || (CLIENT_ASSERTION_ALGORITHMS as readonly string[]).includes(alg);
  const usable = (method: (typeof DOCUMENT_METHOD_PREFERENCE)[number]): boolean =>
    listed.includes(method) &&
    tenantAccepts(method) &&
    (method === 'none' || (privateKeyJwtOffered && hasKeys && algAccepted));
  const chosen = DOCUMENT_METHOD_PREFERENCE.find(usable);
  if (chosen !== undefined) return chosen;
  if (listed.includes('private_key_jwt') && tenantAccepts('private_key_jwt')) {
    throw new OAuthError(
      'invalid_client',
      !privateKeyJwtOffered
        ? 'this server does not accept private_key_jwt client authentication'
        : !hasKeys
          ? 'the metadata document names private_key_jwt but publishes no jwks_uri or jwks'
          : `the metadata document's token_endpoint_auth_signing_alg is not one of ${CLIENT_ASSERTION_ALGORITHMS.join(', ')}`,
    );
  }
  throw new OAuthError(
    'invalid_client',
    `the metadata document names no authentication method this server supports for it (${DOCUMENT_METHOD_PREFERENCE.filter(tenantAccepts).join(', ') || 'nothing on this tenant'}): ${listed.join(', ')}`,
  );
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

function hostOf(uri: string | undefined): string | undefined {
  if (uri === undefined) return undefined;
  try {
    return new URL(uri).host || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Finds a client: through the CIMD resolver for URL ids (see `isMetadataDocumentClientId`; an `http` one is
 * refused there with `not_https`), through the registry otherwise.
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
    const method = negotiateDocumentAuthMethod(
      document,
      context.clientAssertions !== undefined,
      (candidate) => tenant.authMethods === undefined || tenant.authMethods.has(candidate),
    );
    const scopes = document.scope === undefined ? undefined : parseScope(document.scope);
    return {
      clientId,
      clientType: 'metadata_document',
      name: document.client_name,
      host: new URL(clientId).host,
      redirectUris: document.redirect_uris,
      grantTypes: document.grant_types ?? ['authorization_code', 'refresh_token'],
      authMethod: method,
      ...(scopes ? { scopes } : {}),
      ...(method === 'private_key_jwt' && document.jwks_uri !== undefined
        ? { jwksUri: document.jwks_uri }
        : {}),
      ...(method === 'private_key_jwt' && document.jwks !== undefined ? { jwks: document.jwks } : {}),
      ...(method === 'private_key_jwt' && document.token_endpoint_auth_signing_alg !== undefined
        ? { signingAlg: document.token_endpoint_auth_signing_alg }
        : {}),
      applicationType: document.application_type ?? inferApplicationType(document.redirect_uris),
    };
  }
  const record = await context.storage.clients.get(tenant.slug, clientId);
  // An expired client is unknown: the sweeper deletes it later, nothing may use it now.
  if (!record || (record.expiresAt !== undefined && record.expiresAt <= context.clock.now())) {
    throw new OAuthError('invalid_client', 'unknown client');
  }
  // A tenant that stopped accepting the client's method no longer serves it (tokenEndpointAuthMethods).
  assertTenantAcceptsAuthMethod(tenant, record.tokenEndpointAuthMethod);
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
    ...(record.jwksUri === undefined ? {} : { jwksUri: record.jwksUri }),
    ...(record.jwks === undefined ? {} : { jwks: record.jwks }),
    ...(record.tokenEndpointAuthSigningAlg === undefined
      ? {}
      : { signingAlg: record.tokenEndpointAuthSigningAlg }),
    applicationType: record.applicationType ?? inferApplicationType(record.redirectUris),
  };
}
