import type { HandlerRequest, HandlerResult } from '@keyhold/core';
import { isAllowedOrigin, jsonResult, mediaType, NO_STORE_HEADERS, sha256Base64url } from '@keyhold/core';
import * as z from 'zod';
import { OAuthError } from '../errors.js';
import { TOKEN_EXCHANGE_GRANT } from '../grants/token-exchange.js';
import type { ServerContext } from '../options.js';
import { pooledRandomToken } from '../random-pool.js';
import { redirectUriProblem } from '../redirect-uri.js';
import type { RequestEvent } from '../request-event.js';
import { formatScope, parseScope } from '../scopes.js';
import type { ClientRecord } from '../storage.js';
import type { Tenant } from '../tenant.js';

const MAX_BODY_BYTES = 16 * 1024;
const text = z.string().min(1).max(2048);
const uri = text.refine((value) => {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}, 'must be an http(s) URL');

// RFC 7591 §2: unknown members are ignored, known ones are checked.
const metadataSchema = z.looseObject({
  redirect_uris: z.array(z.string().max(2048)).max(20).optional(),
  token_endpoint_auth_method: z.enum(['none', 'client_secret_basic', 'client_secret_post']).optional(),
  grant_types: z
    .array(z.enum(['authorization_code', 'refresh_token', 'client_credentials', TOKEN_EXCHANGE_GRANT]))
    .max(4)
    .optional(),
  response_types: z.array(z.literal('code')).max(1).optional(),
  client_name: text.optional(),
  client_uri: uri.optional(),
  logo_uri: uri.optional(),
  scope: z.string().max(2048).optional(),
});

function invalidMetadata(description: string): OAuthError {
  return new OAuthError('invalid_client_metadata', description);
}

/**
 * POST /register (RFC 7591). Secrets are returned once and stored as SHA-256 hashes. A browser request
 * (one with `Origin`) is refused with 403 unless it comes from the server's own origin or one of the
 * `allowedOrigins`: a page on another site (or a DNS-rebinding name) cannot register clients.
 */
export async function registerHandler(
  context: ServerContext,
  tenant: Tenant,
  request: HandlerRequest,
  event: RequestEvent,
): Promise<HandlerResult> {
  const origin = request.headers.origin;
  if (
    origin !== undefined &&
    context.registrationOrigins !== 'any' &&
    !isAllowedOrigin(origin, context.registrationOrigins)
  ) {
    throw new OAuthError('invalid_request', 'cross-origin request refused', { status: 403 });
  }
  if (mediaType(request.headers['content-type']) !== 'application/json') {
    throw new OAuthError('invalid_client_metadata', 'the body must be application/json');
  }
  if (Buffer.byteLength(request.body) > MAX_BODY_BYTES)
    throw invalidMetadata('the registration request is too large');
  let json: unknown;
  try {
    json = JSON.parse(request.body);
  } catch {
    throw invalidMetadata('the body is not valid JSON');
  }
  const parsed = metadataSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalidMetadata(`${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
  }
  const metadata = parsed.data;
  const authMethod = metadata.token_endpoint_auth_method ?? 'client_secret_basic';
  const grantTypes = [...new Set(metadata.grant_types ?? ['authorization_code', 'refresh_token'])];
  const usesCode = grantTypes.includes('authorization_code');
  const redirectUris = metadata.redirect_uris ?? [];
  if (usesCode && redirectUris.length === 0) {
    throw new OAuthError(
      'invalid_redirect_uri',
      'redirect_uris is required for the authorization_code grant',
    );
  }
  for (const redirectUri of redirectUris) {
    const problem = redirectUriProblem(redirectUri);
    if (problem) throw new OAuthError('invalid_redirect_uri', `redirect_uri ${problem}`);
  }
  if (grantTypes.includes('refresh_token') && !usesCode) {
    throw invalidMetadata('refresh_token is only issued with the authorization_code grant');
  }
  if (authMethod === 'none') {
    const needsSecret = grantTypes.filter(
      (grant) => grant === 'client_credentials' || grant === TOKEN_EXCHANGE_GRANT,
    );
    if (needsSecret.length > 0) throw invalidMetadata(`public clients may not use ${needsSecret.join(', ')}`);
  }
  if (authMethod === 'client_secret_post' && usesCode) {
    // The spec requires HTTP Basic of confidential clients on the authorization_code grant.
    throw invalidMetadata(
      'the authorization_code grant requires client_secret_basic for confidential clients',
    );
  }
  const responseTypes = metadata.response_types ?? (usesCode ? ['code'] : []);
  if (usesCode !== responseTypes.includes('code')) {
    throw invalidMetadata('response_types "code" goes with the authorization_code grant and only with it');
  }
  let scope: string | undefined;
  if (metadata.scope !== undefined) {
    const scopes = parseScope(metadata.scope);
    if (!scopes) throw invalidMetadata('scope is malformed');
    if (tenant.scopesSupported && !scopes.every((s) => tenant.scopesSupported?.includes(s))) {
      throw invalidMetadata('scope names a scope this server does not offer');
    }
    scope = formatScope(scopes);
  }
  const clientId = pooledRandomToken(16);
  const secret = authMethod === 'none' ? undefined : pooledRandomToken();
  const now = context.clock.now();
  const record: ClientRecord = {
    clientId,
    ...(metadata.client_name === undefined ? {} : { clientName: metadata.client_name }),
    redirectUris,
    grantTypes,
    responseTypes,
    tokenEndpointAuthMethod: authMethod,
    ...(secret === undefined ? {} : { clientSecretHash: sha256Base64url(secret) }),
    ...(scope === undefined ? {} : { scope }),
    ...(metadata.client_uri === undefined ? {} : { clientUri: metadata.client_uri }),
    ...(metadata.logo_uri === undefined ? {} : { logoUri: metadata.logo_uri }),
    createdAt: now,
  };
  await context.storage.clients.create(tenant.slug, record);
  event.client_type = 'registered';
  context.logger.info({ tenant: tenant.slug, clientId, authMethod }, 'client registered');
  return jsonResult(
    201,
    {
      client_id: clientId,
      client_id_issued_at: Math.floor(now / 1000),
      ...(secret === undefined ? {} : { client_secret: secret, client_secret_expires_at: 0 }),
      redirect_uris: redirectUris,
      token_endpoint_auth_method: authMethod,
      grant_types: grantTypes,
      response_types: responseTypes,
      ...(metadata.client_name === undefined ? {} : { client_name: metadata.client_name }),
      ...(metadata.client_uri === undefined ? {} : { client_uri: metadata.client_uri }),
      ...(metadata.logo_uri === undefined ? {} : { logo_uri: metadata.logo_uri }),
      ...(scope === undefined ? {} : { scope }),
    },
    NO_STORE_HEADERS,
  );
}
