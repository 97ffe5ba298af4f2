import { onceKey } from '@keyhold/internal';
import type { CryptoKey } from 'jose';
import { decodeJwt, decodeProtectedHeader, importJWK } from 'jose';
import { isHostAllowed } from './cimd/client-id-url.js';
import type { ClientAssertionAlgorithm } from './client-keys.js';
import { CLIENT_ASSERTION_ALGORITHMS, selectClientKey } from './client-keys.js';
import type { ResolvedClient } from './clients.js';
import { OAuthError } from './errors.js';
import { type JwtVerification, verifyJwt } from './jwt-verification.js';
import type { ServerContext } from './options.js';
import type { ClientJwk } from './storage.js';
import type { Tenant } from './tenant.js';

/**
 * The `client_assertion_type` of a JWT client assertion (RFC 7523 §2.2).
 *
 * @example
 * ```ts
 * const form = { client_assertion_type: CLIENT_ASSERTION_TYPE_JWT_BEARER, client_assertion: jwt };
 * ```
 */
export const CLIENT_ASSERTION_TYPE_JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

const MAX_JTI_LENGTH = 256;

function refuse(description: string): OAuthError {
  return new OAuthError('invalid_client', description);
}

/**
 * The `sub` of an assertion, read without verification: only used to find the client whose keys then verify
 * it (and `sub` is checked again against that client). `undefined` when the value is not a readable JWT.
 */
export function unverifiedAssertionSubject(assertion: string): string | undefined {
  try {
    const sub = decodeJwt(assertion).sub;
    return typeof sub === 'string' && sub !== '' ? sub : undefined;
  } catch {
    return undefined;
  }
}

async function clientKeys(
  context: ServerContext,
  client: ResolvedClient,
  refresh: boolean,
): Promise<{ keys: readonly ClientJwk[]; refetchable: boolean }> {
  if (client.jwks) return { keys: client.jwks.keys, refetchable: false };
  const jwksUri = client.jwksUri;
  const settings = context.clientAssertions;
  if (jwksUri === undefined || !settings) throw refuse('the client has no keys to verify its assertion with');
  const allowedDomains = client.keySetFetch.allowedDomains;
  if (allowedDomains !== undefined) {
    // The tenant's allowlist gates the fetch (the built-in resolver checks it too, before any request).
    let host: string;
    try {
      host = new URL(jwksUri).hostname;
    } catch {
      throw refuse('the client jwks_uri is not a URL');
    }
    if (!isHostAllowed(host, allowedDomains)) {
      throw refuse(`the client jwks_uri host ${host} is not allowed by this server`);
    }
  }
  const resolution = await settings.jwks.resolve(jwksUri, { refresh, ...client.keySetFetch });
  if (!resolution.ok) throw refuse(resolution.description);
  return { keys: resolution.keys, refetchable: true };
}

/** jose's error codes as the `invalid_client` descriptions name them: the rule, never the content. */
function describeRefusal({ code, claim }: Extract<JwtVerification, { ok: false }>): string {
  if (code === 'ERR_JWT_EXPIRED') return 'the client assertion has expired';
  if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED') {
    switch (claim) {
      case 'iss':
        return 'the client assertion iss must be the client_id';
      case 'sub':
        return 'the client assertion sub must be the client_id';
      case 'nbf':
        return 'the client assertion is not valid yet (nbf)';
      default:
        return `the client assertion claim "${String(claim)}" is missing or invalid`;
    }
  }
  if (code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') {
    return 'the client assertion signature does not verify with the client key';
  }
  return 'the client assertion is not a valid signed JWT';
}

/**
 * Authenticates a `private_key_jwt` client (RFC 7523 §2.2 and §3, RFC 7521 §4.2): the assertion's `alg` is
 * one of {@link CLIENT_ASSERTION_ALGORITHMS} (and the client's declared one, if any); the key is chosen by
 * `kid` (or is the only suitable key), refetching a `jwks_uri` once per throttle interval when the `kid` is
 * unknown; `iss` and `sub` are the client_id; `aud` is the issuer identifier alone, as a single string
 * (draft-ietf-oauth-rfc7523bis: neither the token endpoint URL nor an array, so an assertion made for one
 * server can never be replayed at another that shares an endpoint URL or an audience list); `exp` is
 * required and at most `maxLifetimeSeconds` ahead (of now and of `iat`), with `clockSkewSeconds` of
 * tolerance; `iat` is not in the future; `jti` is required and single use. Every failure throws
 * `invalid_client` with a description that names the rule and never the assertion's content.
 *
 * @example
 * ```ts
 * await verifyClientAssertion(context, tenant, client, params.client_assertion);
 * ```
 */
export async function verifyClientAssertion(
  context: ServerContext,
  tenant: Tenant,
  client: ResolvedClient,
  assertion: string,
): Promise<void> {
  const settings = context.clientAssertions;
  if (!settings) throw refuse('this server does not accept private_key_jwt client authentication');
  let header: { alg?: string; kid?: string };
  try {
    header = decodeProtectedHeader(assertion);
  } catch {
    throw refuse('client_assertion is not a signed JWT');
  }
  const alg = header.alg;
  if (alg === undefined || !(CLIENT_ASSERTION_ALGORITHMS as readonly string[]).includes(alg)) {
    throw refuse(
      `the client assertion alg "${String(alg)}" is not accepted (use ${CLIENT_ASSERTION_ALGORITHMS.join(', ')})`,
    );
  }
  const algorithm = alg as ClientAssertionAlgorithm;
  if (client.signingAlg !== undefined && client.signingAlg !== algorithm) {
    throw refuse(
      `the client declared token_endpoint_auth_signing_alg ${client.signingAlg}, not ${algorithm}`,
    );
  }
  const kid = typeof header.kid === 'string' ? header.kid : undefined;

  let { keys, refetchable } = await clientKeys(context, client, false);
  let selection = selectClientKey(keys, algorithm, kid);
  if (!selection.ok && selection.reason === 'unknown_kid' && refetchable) {
    // The client may have rotated its keys since the set was cached: one refetch, throttled by the resolver.
    ({ keys, refetchable } = await clientKeys(context, client, true));
    selection = selectClientKey(keys, algorithm, kid);
  }
  if (!selection.ok) {
    throw refuse(
      selection.reason === 'unknown_kid'
        ? 'no client key has the kid of the client assertion'
        : selection.reason === 'ambiguous'
          ? 'the client has several keys for this alg: the client assertion must name one with kid'
          : `the client has no key for alg ${algorithm}`,
    );
  }
  let key: CryptoKey | Uint8Array;
  try {
    key = await importJWK({ ...selection.key }, algorithm);
  } catch {
    throw refuse('the client key cannot be used to verify the client assertion');
  }

  const now = context.clock.now();
  const skew = settings.clockSkewSeconds;
  let verification: JwtVerification | undefined;
  try {
    verification = await verifyJwt(assertion, key, {
      algorithms: [algorithm],
      issuer: client.clientId,
      subject: client.clientId,
      // `aud` is checked below: jose's `audience` also accepts an array that merely contains the value.
      requiredClaims: ['exp', 'jti'],
      nowMs: now,
      clockToleranceSeconds: skew,
    });
  } catch {
    // What jose throws that is not a verdict (a TypeError for an RSA key under 2048 bits, say) comes from
    // what the client published, so it is the client's failure too, never a 500.
    verification = undefined;
  }
  if (verification?.ok !== true) {
    const description = verification
      ? describeRefusal(verification)
      : 'the client assertion cannot be verified with the client key';
    context.logger.debug(
      { tenant: tenant.slug, clientId: client.clientId, detail: description },
      'client assertion refused',
    );
    throw refuse(description);
  }
  const { payload } = verification;
  if (payload.aud !== tenant.issuer) {
    throw refuse(
      Array.isArray(payload.aud)
        ? 'the client assertion aud must be the issuer identifier as a single string, not an array'
        : `the client assertion aud must be the issuer identifier (${tenant.issuer}) alone`,
    );
  }
  const nowSeconds = now / 1000;
  const exp = payload.exp as number;
  const limit = settings.maxLifetimeSeconds + skew;
  if (exp - nowSeconds > limit || (payload.iat !== undefined && exp - payload.iat > limit)) {
    throw refuse(
      `the client assertion lives too long: exp must be at most ${settings.maxLifetimeSeconds} s after iat and now`,
    );
  }
  if (payload.iat !== undefined && payload.iat - nowSeconds > skew) {
    throw refuse('the client assertion iat is in the future');
  }
  const jti = payload.jti;
  if (typeof jti !== 'string' || jti === '' || jti.length > MAX_JTI_LENGTH) {
    throw refuse(`the client assertion jti must be a string of 1 to ${MAX_JTI_LENGTH} characters`);
  }
  const first = await settings.onceStore.consume(
    onceKey('assertion', tenant.slug, client.clientId, jti),
    exp * 1000,
    now,
  );
  if (!first) {
    context.logger.warn(
      {
        event: 'replay_detected',
        reason: 'client_assertion',
        tenant: tenant.slug,
        clientId: client.clientId,
      },
      'client assertion replayed',
    );
    throw refuse('the client assertion was already used (its jti is single use)');
  }
}
