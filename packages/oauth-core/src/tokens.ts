import type { JWTPayload } from 'jose';
import { decodeProtectedHeader, SignJWT } from 'jose';
import { LRUCache } from 'lru-cache';
import { verifyJwt } from './jwt-verification.js';
import type { TenantKeySet } from './keys.js';
import { pooledRandomToken } from './random-pool.js';

/**
 * The acting party of a delegated token (RFC 8693 §4.1). A chain of delegations nests: the outermost
 * `act` is the current actor, its `act` the one before, and so on.
 */
export interface ActorClaim {
  readonly sub: string;
  readonly client_id?: string;
  readonly act?: ActorClaim;
}

/**
 * The claims of an access token this server issues (RFC 9068 profile, `typ: at+jwt`).
 *
 * @example
 * ```ts
 * const check = await server.verifyAccessToken('demo', header);
 * if (check.ok) { const claims: AccessTokenClaims = check.claims; claims.scope?.split(' '); }
 * ```
 */
export interface AccessTokenClaims {
  readonly iss: string;
  /** The user id, or `client:<client_id>` for client_credentials. */
  readonly sub: string;
  readonly aud: string | readonly string[];
  readonly client_id: string;
  /** Space-separated; absent when no scope was granted. */
  readonly scope?: string;
  readonly jti: string;
  readonly iat: number;
  readonly exp: number;
  readonly act?: ActorClaim;
  /** The grant the token was issued under: revoking the grant refuses the token at the next request. */
  readonly grant_id?: string;
  /** A DPoP-bound token's confirmation (RFC 9449 §6.1): the SHA-256 thumbprint of the proof key. */
  readonly cnf?: { readonly jkt: string };
}

/** The typ header of access tokens (RFC 9068 §2.1). */
export const ACCESS_TOKEN_TYP = 'at+jwt';

export interface AccessTokenInput {
  readonly issuer: string;
  readonly subject: string;
  readonly audience: readonly string[];
  readonly clientId: string;
  readonly scope: string;
  readonly nowSeconds: number;
  readonly expiresAtSeconds: number;
  readonly act?: ActorClaim;
  /** A `jti` chosen in advance (an authorization code records it); default: a fresh random one. */
  readonly jti?: string;
  readonly grantId?: string;
  /** Binds the token to a DPoP key (RFC 9449 §6.1 `cnf.jkt`). */
  readonly jkt?: string;
}

export async function signAccessToken(
  keys: TenantKeySet,
  input: AccessTokenInput,
): Promise<{ token: string; claims: AccessTokenClaims }> {
  const claims: AccessTokenClaims = {
    iss: input.issuer,
    sub: input.subject,
    aud: input.audience.length === 1 ? (input.audience[0] as string) : input.audience,
    client_id: input.clientId,
    ...(input.scope === '' ? {} : { scope: input.scope }),
    jti: input.jti ?? pooledRandomToken(16),
    iat: input.nowSeconds,
    exp: input.expiresAtSeconds,
    ...(input.act ? { act: input.act } : {}),
    ...(input.grantId === undefined ? {} : { grant_id: input.grantId }),
    ...(input.jkt === undefined ? {} : { cnf: { jkt: input.jkt } }),
  };
  const active = keys.active;
  const token = active.nativeSigner
    ? active.nativeSigner.sign(ACCESS_TOKEN_TYP, claims)
    : await new SignJWT(claims as unknown as JWTPayload)
        .setProtectedHeader({ alg: active.alg, kid: active.kid, typ: ACCESS_TOKEN_TYP })
        .sign(active.signingKey);
  return { token, claims };
}

export interface IdTokenInput {
  readonly issuer: string;
  readonly subject: string;
  readonly clientId: string;
  readonly nonce?: string;
  readonly authTimeSeconds: number;
  readonly nowSeconds: number;
  readonly expiresAtSeconds: number;
  /** The user's released claims (`userClaims`); never override the registered ones above. */
  readonly userClaims?: Readonly<Record<string, unknown>>;
}

export async function signIdToken(keys: TenantKeySet, input: IdTokenInput): Promise<string> {
  const claims = {
    ...input.userClaims,
    iss: input.issuer,
    sub: input.subject,
    aud: input.clientId,
    azp: input.clientId,
    iat: input.nowSeconds,
    exp: input.expiresAtSeconds,
    auth_time: input.authTimeSeconds,
    ...(input.nonce === undefined ? {} : { nonce: input.nonce }),
  };
  const active = keys.active;
  if (active.nativeSigner) return active.nativeSigner.sign('JWT', claims);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: active.alg, kid: active.kid, typ: 'JWT' })
    .sign(active.signingKey);
}

/** Why a presented access token was not accepted; the description is safe to send to the client. */
export type AccessTokenVerification =
  | { readonly ok: true; readonly claims: AccessTokenClaims }
  | { readonly ok: false; readonly description: string };

/** Whether a string has the shape of a compact JWS; refresh tokens never do. */
export function looksLikeJwt(token: string): boolean {
  return token.split('.').length === 3;
}

/**
 * The deepest `act` nesting the verifier accepts: the outermost actor is at depth 0, so a chain may hold
 * `MAX_ACTOR_NESTING + 1` actors. The token-exchange grant refuses to issue a longer one.
 */
export const MAX_ACTOR_NESTING = 64;

/** Whether a value is a well-formed `act` claim the verifier accepts (shape and depth). */
export function isActor(value: unknown, depth = 0): value is ActorClaim {
  if (depth > MAX_ACTOR_NESTING || typeof value !== 'object' || value === null) return false;
  const actor = value as Record<string, unknown>;
  if (typeof actor.sub !== 'string') return false;
  if (actor.client_id !== undefined && typeof actor.client_id !== 'string') return false;
  return actor.act === undefined || isActor(actor.act, depth + 1);
}

/**
 * Access tokens this process has verified, per key set (so a key removed from a tenant takes its
 * verifications with it), by the exact token string: a resource server presents the same bearer on every
 * call, and an ECDSA verification costs more than the rest of an introspection. A hit skips the signature
 * and the shape checks, which cannot change for the same bytes and keys; the issuer and the clock checks
 * are made again every time, so the answer is the one a fresh verification gives. Revocation is the
 * caller's, per request, as before. At most this many tokens per key set (about 1 KB each).
 */
export const VERIFIED_TOKENS_MAX = 10_000;
const verifiedTokens = new WeakMap<TenantKeySet, LRUCache<string, AccessTokenClaims>>();

/**
 * A remembered verification, replayed: the checks of jose's `jwtVerify` that depend on the issuer asked for
 * and on the time (with the options below: `iss`, `nbf`, `exp`, no tolerance), in jose's order, on claims
 * jose has already accepted for these exact bytes. Everything else jose checked is a function of the bytes
 * and the keys, which the cache key fixes. Tests hold a hit to the answer a fresh `jwtVerify` gives.
 */
function recheck(claims: AccessTokenClaims, issuer: string, nowMs: number): AccessTokenVerification {
  if (claims.iss !== issuer) return INVALID;
  const now = Math.floor(nowMs / 1000);
  const notBefore = (claims as { readonly nbf?: unknown }).nbf;
  if (typeof notBefore === 'number' && notBefore > now) return INVALID;
  if (claims.exp <= now) return EXPIRED;
  return { ok: true, claims };
}

const REQUIRED_CLAIMS = ['sub', 'aud', 'jti', 'iat', 'exp', 'client_id'];
const INVALID = { ok: false, description: 'the access token is invalid' } as const;
const EXPIRED = { ok: false, description: 'the access token has expired' } as const;
const MALFORMED = { ok: false, description: 'the access token is malformed' } as const;
const FOREIGN = { ok: false, description: 'the access token was not signed by this issuer' } as const;

/**
 * jose's error codes as the bearer challenge describes them (RFC 6750 §3.1 `error_description`): an
 * expired token says so, so that a client refreshes; every other refusal is the same "invalid", which tells
 * a prober nothing about which check failed.
 */
function describeRefusal(code: string): AccessTokenVerification {
  return code === 'ERR_JWT_EXPIRED' ? EXPIRED : INVALID;
}

/**
 * Verifies the signature (against the tenant key its `kid` names), `typ`, `iss` and lifetime of one of this
 * server's access tokens, through jose ({@link verifyJwt}) on every runtime. Revocation is checked by the
 * caller, which has the store.
 */
export async function verifyAccessTokenJwt(
  keys: TenantKeySet,
  token: string,
  issuer: string,
  nowMs: number,
): Promise<AccessTokenVerification> {
  const cache = verifiedTokens.get(keys);
  const known = cache?.get(token);
  if (known !== undefined) return recheck(known, issuer, nowMs);
  if (!looksLikeJwt(token)) return MALFORMED;
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    return MALFORMED;
  }
  // Choosing the key, not judging the token: jose then accepts only this key's alg.
  const key = typeof header.kid === 'string' ? keys.byKid.get(header.kid) : undefined;
  if (!key || header.alg !== key.alg) return FOREIGN;
  const verification = await verifyJwt(token, key.verificationKey, {
    algorithms: [key.alg],
    typ: ACCESS_TOKEN_TYP,
    issuer,
    requiredClaims: REQUIRED_CLAIMS,
    nowMs,
  });
  if (!verification.ok) return describeRefusal(verification.code);
  const { payload } = verification;
  if (typeof payload.client_id !== 'string' || typeof payload.jti !== 'string') return MALFORMED;
  if (payload.scope !== undefined && typeof payload.scope !== 'string') return MALFORMED;
  if (payload.act !== undefined && !isActor(payload.act)) return MALFORMED;
  if (payload.grant_id !== undefined && typeof payload.grant_id !== 'string') return MALFORMED;
  if (payload.cnf !== undefined && !isConfirmation(payload.cnf)) return MALFORMED;
  const claims = payload as unknown as AccessTokenClaims;
  let verified = cache;
  if (verified === undefined) {
    verified = new LRUCache<string, AccessTokenClaims>({ max: VERIFIED_TOKENS_MAX });
    verifiedTokens.set(keys, verified);
  }
  verified.set(token, claims);
  return { ok: true, claims };
}

/** Whether a `cnf` claim is the one this server writes: `{ jkt }` and a thumbprint-shaped string. */
function isConfirmation(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const jkt = (value as { readonly jkt?: unknown }).jkt;
  return typeof jkt === 'string' && /^[A-Za-z0-9_-]{43}$/.test(jkt);
}

/** The audiences of a token as an array. */
export function audiences(claims: AccessTokenClaims): readonly string[] {
  return typeof claims.aud === 'string' ? [claims.aud] : claims.aud;
}
