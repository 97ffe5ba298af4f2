import type { HandlerRequest, HandlerResult } from '@keyhold/core';
import { isAllowedOrigin, jsonResult, mediaType, NO_STORE_HEADERS } from '@keyhold/internal';
import * as z from 'zod';
import { clientRecord, usesSecret } from '../client-administration.js';
import type { ClientMetadata } from '../client-metadata.js';
import { CLIENT_GRANT_TYPES, CLIENT_METADATA_LIMITS, checkClientMetadata } from '../client-metadata.js';
import { hasControlCharacter } from '../control-characters.js';
import { OAuthError, optionCheck } from '../errors.js';
import type { ServerContext } from '../options.js';
import { newClientId, pooledRandomToken } from '../random-pool.js';
import { RateLimitedError } from '../rate-limits.js';
import type { InitialAccessTokenConfig, RegistrationDecision } from '../registration-policy.js';
import { checkInitialAccessToken, gatedGrantTypes } from '../registration-policy.js';
import type { RequestEvent } from '../request-event.js';
import { oauthErrorResult } from '../responses.js';
import type { ClientJwks } from '../storage.js';
import type { Tenant } from '../tenant.js';

const utf8 = new TextEncoder();

const L = CLIENT_METADATA_LIMITS;

// RFC 7591 §2: unknown members are ignored (and not stored), known ones are checked. The limits here only
// bound the parse; checkClientMetadata applies the same limits to every client however it is created.
const metadataSchema = z.looseObject({
  redirect_uris: z.array(z.string().max(L.uriLength)).max(L.redirectUris).optional(),
  token_endpoint_auth_method: z
    .enum(['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'])
    .optional(),
  jwks_uri: z.string().min(1).max(L.uriLength).optional(),
  // The key set's own rules are checkMetadataDocument's and checkClientMetadata's (parseClientJwks).
  jwks: z.unknown().optional(),
  token_endpoint_auth_signing_alg: z.string().max(32).optional(),
  application_type: z.enum(['web', 'native']).optional(),
  dpop_bound_access_tokens: z.boolean().optional(),
  grant_types: z.array(z.enum(CLIENT_GRANT_TYPES)).max(8).optional(),
  response_types: z.array(z.literal('code')).max(1).optional(),
  client_name: z.string().min(1).max(L.clientNameLength).optional(),
  client_uri: z.string().min(1).max(L.uriLength).optional(),
  logo_uri: z.string().min(1).max(L.uriLength).optional(),
  scope: z.string().max(L.scopeLength).optional(),
});

const TOKEN_HASH = /^[A-Za-z0-9_-]{43}$/;

/**
 * `Retry-After` when the tenant holds `maxDynamicClients`: room comes back only as unused clients expire,
 * so an early retry would only be refused again.
 */
const CAPACITY_RETRY_AFTER_SECONDS = 3600;

function invalidMetadata(description: string): OAuthError {
  return new OAuthError('invalid_client_metadata', description);
}

function configuredTokens(tenant: Tenant): readonly InitialAccessTokenConfig[] {
  const tokens = tenant.config.initialAccessTokens ?? [];
  for (const token of tokens) {
    if (typeof token?.tokenHash !== 'string' || !TOKEN_HASH.test(token.tokenHash)) {
      throw optionCheck.invalid(
        'initialAccessTokens[].tokenHash must be a SHA-256 in base64url (sha256Base64url of the token)',
      );
    }
  }
  return tokens;
}

/**
 * The Origin check of `POST /register`: a browser request (one with `Origin`) from neither the server's own
 * origin nor one of the `allowedOrigins` is refused with 403 (thrown). The endpoint runs it before the
 * registration rate limit, so a page on another site spends nothing of the budget.
 */
export function refuseCrossOriginRegistration(context: ServerContext, request: HandlerRequest): void {
  const origin = request.headers.origin;
  if (
    origin !== undefined &&
    context.registrationOrigins !== 'any' &&
    !isAllowedOrigin(origin, context.registrationOrigins)
  ) {
    throw new OAuthError('invalid_request', 'cross-origin request refused', { status: 403 });
  }
}

/**
 * POST /register (RFC 7591). Secrets are returned once and stored as SHA-256 hashes. Anonymous requests
 * may register `authorization_code` / `refresh_token` clients; anything else needs the registration
 * policy's consent (by default: a valid initial access token, RFC 7591 §3). An `Authorization` header that
 * is not a valid initial access token answers 401 `invalid_token` (RFC 6750 §3.1), whatever the body.
 * A browser request (one with `Origin`) is refused with 403 unless it comes from the server's own origin or
 * one of the `allowedOrigins` ({@link refuseCrossOriginRegistration}, run by the endpoint): a page on another
 * site (or a DNS-rebinding name) cannot register clients.
 * A tenant holding `maxDynamicClients` unexpired dynamic clients answers 429 `rate_limited` with
 * `Retry-After` (the cap on what anonymous registration can store).
 */
export async function registerHandler(
  context: ServerContext,
  tenant: Tenant,
  request: HandlerRequest,
  event: RequestEvent,
): Promise<HandlerResult> {
  const now = context.clock.now();
  const presented = checkInitialAccessToken(request.headers.authorization, configuredTokens(tenant), now);
  if (!presented.ok) {
    event.error_code = 'invalid_token';
    context.logger.info({ tenant: tenant.slug }, 'registration refused: bad initial access token');
    const error = new OAuthError('invalid_token', presented.description);
    return oauthErrorResult(error, {
      'www-authenticate': `Bearer realm="${tenant.slug}", error="invalid_token", error_description="${presented.description}"`,
    });
  }
  if (mediaType(request.headers['content-type']) !== 'application/json') {
    throw invalidMetadata('the body must be application/json');
  }
  if (utf8.encode(request.body).byteLength > L.bodyBytes) {
    throw invalidMetadata(`the registration request is larger than ${L.bodyBytes} bytes`);
  }
  let json: unknown;
  try {
    json = JSON.parse(request.body);
  } catch {
    throw invalidMetadata('the body is not valid JSON');
  }
  if (hasControlCharacter(json)) throw invalidMetadata('the metadata contains a control character');
  const parsed = metadataSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalidMetadata(`${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
  }
  const wire = parsed.data;
  const grantTypes = [...new Set(wire.grant_types ?? ['authorization_code', 'refresh_token'])];
  const requested = checkClientMetadata(
    {
      redirectUris: wire.redirect_uris ?? [],
      grantTypes,
      responseTypes: wire.response_types ?? (grantTypes.includes('authorization_code') ? ['code'] : []),
      tokenEndpointAuthMethod: wire.token_endpoint_auth_method ?? 'client_secret_basic',
      ...(wire.client_name === undefined ? {} : { clientName: wire.client_name }),
      ...(wire.client_uri === undefined ? {} : { clientUri: wire.client_uri }),
      ...(wire.logo_uri === undefined ? {} : { logoUri: wire.logo_uri }),
      ...(wire.scope === undefined ? {} : { scope: wire.scope }),
      ...(wire.jwks_uri === undefined ? {} : { jwksUri: wire.jwks_uri }),
      ...(wire.jwks === undefined ? {} : { jwks: wire.jwks as ClientJwks }),
      ...(wire.token_endpoint_auth_signing_alg === undefined
        ? {}
        : { tokenEndpointAuthSigningAlg: wire.token_endpoint_auth_signing_alg }),
      ...(wire.application_type === undefined ? {} : { applicationType: wire.application_type }),
      ...(wire.dpop_bound_access_tokens === undefined
        ? {}
        : { dpopBoundAccessTokens: wire.dpop_bound_access_tokens }),
    },
    tenant.scopesSupported,
    tenant.config.allowedCimdDomains ?? [],
  );
  const decision: RegistrationDecision = await context.registrationPolicy({
    tenant: tenant.slug,
    metadata: requested,
    request,
    ...(presented.token === undefined ? {} : { initialAccessToken: presented.token }),
    gatedGrantTypes: gatedGrantTypes(requested.grantTypes),
  });
  // A policy written in plain JavaScript may answer anything: only an explicit `ok: true` allows.
  if (decision.ok !== true) {
    const description =
      typeof decision.description === 'string' && decision.description !== ''
        ? decision.description
        : 'the registration policy refused this client';
    context.logger.info({ tenant: tenant.slug, grantTypes: requested.grantTypes }, 'registration refused');
    throw invalidMetadata(description);
  }
  // Metadata the policy returns goes through the same structural rules as the request's.
  const metadata: ClientMetadata =
    decision.metadata === undefined
      ? requested
      : checkClientMetadata(
          decision.metadata,
          tenant.scopesSupported,
          tenant.config.allowedCimdDomains ?? [],
        );
  const clientId = newClientId();
  if (metadata.tokenEndpointAuthMethod === 'private_key_jwt' && !context.clientAssertions) {
    throw invalidMetadata('this server does not accept private_key_jwt client authentication');
  }
  if (tenant.authMethods !== undefined && !tenant.authMethods.has(metadata.tokenEndpointAuthMethod)) {
    throw invalidMetadata(
      `token_endpoint_auth_method ${metadata.tokenEndpointAuthMethod} is not accepted on this tenant (it accepts ${[...tenant.authMethods].join(', ')})`,
    );
  }
  // The last check before the write, so malformed or refused requests never reach the count.
  if ((await context.storage.clients.countDynamic(tenant.slug, now)) >= context.maxDynamicClients) {
    context.logger.warn(
      {
        event: 'rate_limited',
        reason: 'dynamic_client_cap',
        endpoint: 'register',
        tenant: tenant.slug,
        maxDynamicClients: context.maxDynamicClients,
      },
      'registration refused: the tenant holds the most dynamically registered clients',
    );
    throw new RateLimitedError(
      'this server holds as many registered clients as it accepts; try again later',
      CAPACITY_RETRY_AFTER_SECONDS,
    );
  }
  const secret = usesSecret(metadata.tokenEndpointAuthMethod) ? pooledRandomToken() : undefined;
  const record = clientRecord(metadata, {
    clientId,
    clientSecret: secret,
    createdAt: now,
    registration: 'dynamic',
    expiresAt: now + context.unusedClientTtlMs,
  });
  await context.storage.clients.create(tenant.slug, record);
  event.client_type = 'registered';
  event.client_id = clientId;
  context.logger.info(
    {
      tenant: tenant.slug,
      clientId,
      authMethod: metadata.tokenEndpointAuthMethod,
      grantTypes: metadata.grantTypes,
      ...(presented.token === undefined ? {} : { initialAccessToken: presented.token.label }),
    },
    'client registered',
  );
  return jsonResult(
    201,
    {
      client_id: clientId,
      client_id_issued_at: Math.floor(now / 1000),
      ...(secret === undefined ? {} : { client_secret: secret, client_secret_expires_at: 0 }),
      redirect_uris: metadata.redirectUris,
      token_endpoint_auth_method: metadata.tokenEndpointAuthMethod,
      grant_types: metadata.grantTypes,
      response_types: metadata.responseTypes,
      ...(metadata.clientName === undefined ? {} : { client_name: metadata.clientName }),
      ...(metadata.clientUri === undefined ? {} : { client_uri: metadata.clientUri }),
      ...(metadata.logoUri === undefined ? {} : { logo_uri: metadata.logoUri }),
      ...(metadata.scope === undefined ? {} : { scope: metadata.scope }),
      ...(metadata.jwksUri === undefined ? {} : { jwks_uri: metadata.jwksUri }),
      ...(metadata.jwks === undefined ? {} : { jwks: metadata.jwks }),
      ...(metadata.tokenEndpointAuthSigningAlg === undefined
        ? {}
        : { token_endpoint_auth_signing_alg: metadata.tokenEndpointAuthSigningAlg }),
      ...(metadata.applicationType === undefined ? {} : { application_type: metadata.applicationType }),
      ...(metadata.dpopBoundAccessTokens === true ? { dpop_bound_access_tokens: true } : {}),
    },
    NO_STORE_HEADERS,
  );
}
