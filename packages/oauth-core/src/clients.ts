import type { HandlerRequest } from '@keyhold/core';
import { isMetadataDocumentClientId } from './cimd/client-id-url.js';
import type { JwksResolveOptions } from './cimd/jwks-resolver.js';
import type { ClientMetadataDocument } from './cimd/types.js';
import { CLIENT_ASSERTION_ALGORITHMS } from './client-keys.js';
import type { ClientMetadata } from './client-metadata.js';
import { ANONYMOUS_GRANT_TYPES, CLIENT_GRANT_TYPES } from './client-metadata.js';
import { OAuthError } from './errors.js';
import type { ServerContext } from './options.js';
import { RateLimitedError } from './rate-limits.js';
import { inferApplicationType } from './redirect-uri.js';
import { gatedGrantTypes } from './registration-policy.js';
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
  /** RFC 9449 §5.2: every token request of the client must carry a DPoP proof. */
  readonly dpopBoundAccessTokens?: boolean;
  /**
   * How the client's `jwks_uri` may be fetched for this request: the tenant's allowlist (absent only for
   * clients the host provisioned itself) and the requesting address a first fetch is charged to.
   */
  readonly keySetFetch: Pick<JwksResolveOptions, 'allowedDomains' | 'requesterIp'>;
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
 * The registration decision for a metadata-document client, as for a `POST /register`: the registration
 * policy sees the document's metadata (with `metadataDocumentUrl`) and decides its grant types. Without a
 * policy of the host's, the default one keeps `authorization_code` and `refresh_token` only. A refusal is
 * `invalid_client`.
 */
async function documentGrants(
  context: ServerContext,
  tenant: Tenant,
  request: HandlerRequest,
  clientId: string,
  metadata: ClientMetadata,
): Promise<Pick<ResolvedClient, 'grantTypes' | 'tokenExchangeAudiences'>> {
  const decision = await context.registrationPolicy({
    tenant: tenant.slug,
    metadata,
    request,
    gatedGrantTypes: gatedGrantTypes(metadata.grantTypes),
    metadataDocumentUrl: clientId,
  });
  // A policy written in plain JavaScript may answer anything: only an explicit `ok: true` allows.
  if (decision.ok !== true) {
    context.logger.info(
      { tenant: tenant.slug, clientId },
      'metadata-document client refused by the registration policy',
    );
    throw new OAuthError(
      'invalid_client',
      typeof decision.description === 'string' && decision.description !== ''
        ? decision.description
        : 'the registration policy refused this client',
    );
  }
  const decided = decision.metadata ?? metadata;
  const known = CLIENT_GRANT_TYPES as readonly string[];
  const grantTypes = [...new Set(decided.grantTypes ?? [])].filter((grant) => known.includes(grant));
  const audiences = decided.tokenExchangeAudiences;
  return { grantTypes, ...(audiences === undefined ? {} : { tokenExchangeAudiences: audiences }) };
}

/**
 * Finds a client: through the CIMD resolver for URL ids (see `isMetadataDocumentClientId`; an `http` one is
 * refused there with `not_https`), through the registry otherwise. `request` is the request that uses the
 * client: its address is charged for a first fetch of a document or key set, and the registration policy
 * sees it for metadata-document clients.
 * Throws `invalid_client` when it cannot be used.
 */
export async function resolveClient(
  context: ServerContext,
  tenant: Tenant,
  clientId: string,
  request: HandlerRequest,
): Promise<ResolvedClient> {
  if (clientId.length > 2048) throw new OAuthError('invalid_client', 'client_id is too long');
  const allowedDomains = tenant.config.allowedCimdDomains ?? [];
  if (isMetadataDocumentClientId(clientId)) {
    if (!context.cimdResolver) {
      throw new OAuthError('invalid_client', 'this server does not accept metadata-document client ids');
    }
    const resolution = await context.cimdResolver.resolve(clientId, {
      allowedDomains,
      requesterIp: request.ip,
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
    const keys = method === 'private_key_jwt';
    const applicationType = document.application_type ?? inferApplicationType(document.redirect_uris);
    const metadata: ClientMetadata = {
      redirectUris: document.redirect_uris,
      grantTypes: document.grant_types ?? ANONYMOUS_GRANT_TYPES,
      responseTypes: document.response_types ?? ['code'],
      tokenEndpointAuthMethod: method,
      clientName: document.client_name,
      ...(document.client_uri === undefined ? {} : { clientUri: document.client_uri }),
      ...(document.logo_uri === undefined ? {} : { logoUri: document.logo_uri }),
      ...(document.scope === undefined ? {} : { scope: document.scope }),
      ...(keys && document.jwks_uri !== undefined ? { jwksUri: document.jwks_uri } : {}),
      ...(keys && document.jwks !== undefined ? { jwks: document.jwks } : {}),
      ...(keys && document.token_endpoint_auth_signing_alg !== undefined
        ? { tokenEndpointAuthSigningAlg: document.token_endpoint_auth_signing_alg }
        : {}),
      applicationType,
    };
    return {
      clientId,
      clientType: 'metadata_document',
      name: document.client_name,
      host: new URL(clientId).host,
      redirectUris: document.redirect_uris,
      ...(await documentGrants(context, tenant, request, clientId, metadata)),
      authMethod: method,
      ...(scopes ? { scopes } : {}),
      ...(metadata.jwksUri === undefined ? {} : { jwksUri: metadata.jwksUri }),
      ...(metadata.jwks === undefined ? {} : { jwks: metadata.jwks }),
      ...(metadata.tokenEndpointAuthSigningAlg === undefined
        ? {}
        : { signingAlg: metadata.tokenEndpointAuthSigningAlg }),
      applicationType,
      ...(document.dpop_bound_access_tokens === true ? { dpopBoundAccessTokens: true } : {}),
      keySetFetch: { allowedDomains, requesterIp: request.ip },
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
    ...(record.dpopBoundAccessTokens === true ? { dpopBoundAccessTokens: true } : {}),
    // A client the host provisioned itself may publish its keys anywhere; every other follows the allowlist.
    keySetFetch:
      record.registration === 'provisioned'
        ? { requesterIp: request.ip }
        : { allowedDomains, requesterIp: request.ip },
  };
}
