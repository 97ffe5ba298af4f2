import type { HandlerRequest } from '@keyhold/core';
import { base64urlDecodeToString, constantTimeEqual, sha256Base64url } from '@keyhold/internal';
import {
  CLIENT_ASSERTION_TYPE_JWT_BEARER,
  unverifiedAssertionSubject,
  verifyClientAssertion,
} from './client-assertion.js';
import type { ResolvedClient } from './clients.js';
import { renewClientOnUse, resolveClient } from './clients.js';
import { hasControlCharacter } from './control-characters.js';
import { OAuthError } from './errors.js';
import type { ServerContext } from './options.js';
import type { Tenant } from './tenant.js';

/**
 * How the caller authenticated: with a secret in a Basic header, with one in the body, with a signed JWT
 * assertion (RFC 7523), or not at all.
 */
export type ClientAuthenticationMethod =
  | 'client_secret_basic'
  | 'client_secret_post'
  | 'private_key_jwt'
  | 'none';

/** An authenticated (or, for public clients, identified) client. */
export interface AuthenticatedClient {
  readonly client: ResolvedClient;
  readonly method: ClientAuthenticationMethod;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

function formDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

function readBasic(header: string): { clientId: string; secret: string } {
  const match = /^Basic +(\S+)\s*$/i.exec(header);
  const encoded = match?.[1];
  if (!encoded || !BASE64.test(encoded))
    throw new OAuthError('invalid_client', 'malformed Basic authorization');
  let decoded: string;
  try {
    // Standard base64 read through the strict base64url decoder: same alphabet after two swaps.
    decoded = base64urlDecodeToString(encoded.replace(/=+$/, '').replaceAll('+', '-').replaceAll('/', '_'));
  } catch {
    throw new OAuthError('invalid_client', 'malformed Basic authorization');
  }
  const colon = decoded.indexOf(':');
  if (colon <= 0) throw new OAuthError('invalid_client', 'malformed Basic authorization');
  // RFC 6749 §2.3.1: both halves are form-urlencoded before they are joined.
  const clientId = formDecode(decoded.slice(0, colon));
  const secret = formDecode(decoded.slice(colon + 1));
  // A control character is refused as in form parameters: PostgreSQL refuses NUL in text (a 500, not a 401).
  if (
    clientId === undefined ||
    secret === undefined ||
    clientId === '' ||
    hasControlCharacter([clientId, secret])
  ) {
    throw new OAuthError('invalid_client', 'malformed Basic authorization');
  }
  return { clientId, secret };
}

/** Options of {@link authenticateClient}. */
export interface AuthenticateClientOptions {
  /** Public clients are identified by client_id alone; when false they are refused. */
  readonly allowPublic: boolean;
  /**
   * The spec requires HTTP Basic of confidential clients with a secret on the authorization_code grant
   * (`private_key_jwt` clients use their assertion).
   */
  readonly requireBasic?: boolean;
  /** Counts as a use of the client: renews a dynamic client's expiry (the token endpoint sets it). */
  readonly renew?: boolean;
  /**
   * Runs on the resolved client before its credentials are checked, so that a refusal here spends nothing
   * single use (a `private_key_jwt` assertion's `jti`) and the client can retry with the same request: the
   * token endpoint's rule that a `dpop_bound_access_tokens` client must send a proof (RFC 9449 §5.2).
   */
  readonly beforeCredentials?: (client: ResolvedClient) => void;
  /**
   * The client this request names, when the caller has already resolved it (the code grant does, before
   * taking the code): the client, or the refusal its resolution ended in (thrown here, in its usual place,
   * so a failed lookup is neither repeated nor counted twice).
   */
  readonly resolved?: { readonly clientId: string; readonly outcome: ResolvedClient | OAuthError };
}

/**
 * The client id a token request names, read where {@link authenticateClient} reads it (the assertion's
 * `sub`, the Basic user, or `client_id`) but checking nothing: `undefined` when none can be read. For
 * decisions that must come before anything is spent; authentication still decides who the client is.
 *
 * @example
 * ```ts
 * const clientId = presentedClientId(request, params);
 * ```
 */
export function presentedClientId(
  request: HandlerRequest,
  params: Readonly<Record<string, string>>,
): string | undefined {
  if (params.client_assertion !== undefined) return unverifiedAssertionSubject(params.client_assertion);
  const authorization = request.headers.authorization;
  if (authorization !== undefined && /^basic /i.test(authorization)) {
    try {
      return readBasic(authorization).clientId;
    } catch {
      return undefined;
    }
  }
  return params.client_id;
}

/**
 * Whether an authenticated client vouches for the decision as a subject of the timeline (see the events'
 * anonymous bound): it proved a credential (a secret, a signed assertion; `none` only names the client) and
 * it is not self-registered, since anyone may register a confidential client and receive a secret.
 */
export function vouchedFor(client: ResolvedClient, method: ClientAuthenticationMethod): boolean {
  return method !== 'none' && client.expiresWhenUnused !== true;
}

/**
 * Authenticates the client of a token, revocation or introspection request (RFC 6749 §2.3): HTTP Basic or
 * `client_secret_post` for clients with a secret, a JWT assertion (`private_key_jwt`, RFC 7523 §2.2) for
 * clients with keys, client_id alone for public ones. A client must use the method it registered (or that
 * its metadata document negotiated). Using two methods at once is `invalid_request`; every failure to
 * authenticate is `invalid_client`.
 */
export async function authenticateClient(
  context: ServerContext,
  tenant: Tenant,
  request: HandlerRequest,
  params: Readonly<Record<string, string>>,
  options: AuthenticateClientOptions,
): Promise<AuthenticatedClient> {
  const authorization = request.headers.authorization;
  const assertionType = params.client_assertion_type;
  const assertion = params.client_assertion;
  let clientId: string | undefined;
  let secret: string | undefined;
  let method: ClientAuthenticationMethod;
  if (assertionType !== undefined || assertion !== undefined) {
    // RFC 7521 §4.2: the assertion is the client's credential, so no other one may come with it.
    if (
      (authorization !== undefined && /^basic /i.test(authorization)) ||
      params.client_secret !== undefined
    ) {
      throw new OAuthError('invalid_request', 'use only one client authentication method');
    }
    if (assertionType === undefined || assertion === undefined) {
      throw new OAuthError('invalid_request', 'client_assertion_type and client_assertion go together');
    }
    if (assertionType !== CLIENT_ASSERTION_TYPE_JWT_BEARER) {
      throw new OAuthError(
        'invalid_client',
        `client_assertion_type must be ${CLIENT_ASSERTION_TYPE_JWT_BEARER}`,
      );
    }
    const subject = unverifiedAssertionSubject(assertion);
    if (subject === undefined)
      throw new OAuthError('invalid_client', 'client_assertion is not a JWT with a sub');
    // RFC 7521 §4.2: client_id is optional; when present it must name the client the assertion is for.
    if (params.client_id !== undefined && params.client_id !== subject) {
      throw new OAuthError('invalid_client', 'client_id does not match the client assertion sub');
    }
    clientId = subject;
    method = 'private_key_jwt';
  } else if (authorization !== undefined && /^basic /i.test(authorization)) {
    const basic = readBasic(authorization);
    if (params.client_secret !== undefined) {
      throw new OAuthError('invalid_request', 'use only one client authentication method');
    }
    if (params.client_id !== undefined && params.client_id !== basic.clientId) {
      throw new OAuthError('invalid_request', 'client_id does not match the authenticated client');
    }
    clientId = basic.clientId;
    secret = basic.secret;
    method = 'client_secret_basic';
  } else {
    clientId = params.client_id;
    secret = params.client_secret;
    method = secret === undefined ? 'none' : 'client_secret_post';
  }
  if (clientId === undefined) throw new OAuthError('invalid_client', 'client authentication is required');
  const known = options.resolved?.clientId === clientId ? options.resolved.outcome : undefined;
  if (known instanceof OAuthError) throw known;
  const client = known ?? (await resolveClient(context, tenant, clientId, request));
  options.beforeCredentials?.(client);
  if (client.authMethod === 'private_key_jwt' || method === 'private_key_jwt') {
    if (client.authMethod !== 'private_key_jwt') {
      throw new OAuthError('invalid_client', 'this client does not authenticate with private_key_jwt');
    }
    if (method !== 'private_key_jwt' || assertion === undefined) {
      throw new OAuthError(
        'invalid_client',
        'this client authenticates with private_key_jwt: send client_assertion_type and client_assertion',
      );
    }
    await verifyClientAssertion(context, tenant, client, assertion);
    await context.authenticatedClientCheck?.(tenant.slug, client.clientId);
    if (options.renew) await renewClientOnUse(context, tenant, client);
    return { client, method };
  }
  if (client.authMethod === 'none' || client.secretHash === undefined) {
    if (method !== 'none')
      throw new OAuthError('invalid_client', 'this is a public client and has no secret');
    if (!options.allowPublic) {
      throw new OAuthError('unauthorized_client', 'public clients may not use this grant');
    }
    if (options.renew) await renewClientOnUse(context, tenant, client);
    return { client, method };
  }
  if (secret === undefined) throw new OAuthError('invalid_client', 'client authentication is required');
  if (!constantTimeEqual(sha256Base64url(secret), client.secretHash)) {
    // The endpoint logs the failure as a security event; this line adds which client, for debugging.
    context.logger.debug({ tenant: tenant.slug, clientId }, 'client secret mismatch');
    throw new OAuthError('invalid_client', 'client authentication failed');
  }
  await context.authenticatedClientCheck?.(tenant.slug, client.clientId);

  if (options.requireBasic && method !== 'client_secret_basic') {
    throw new OAuthError(
      'invalid_client',
      'confidential clients must authenticate with HTTP Basic on this grant',
    );
  }
  if (options.renew) await renewClientOnUse(context, tenant, client);
  return { client, method };
}
