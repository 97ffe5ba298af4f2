import type { HandlerRequest } from '@keyhold/core';
import { constantTimeEqual, sha256Base64url } from '@keyhold/internal';
import type { ClientMetadata } from './client-metadata.js';
import { ANONYMOUS_GRANT_TYPES } from './client-metadata.js';

/**
 * An RFC 7591 §3 initial access token a tenant accepts on `POST /register` (as `Authorization: Bearer …`).
 * Only its SHA-256 is configured, so the configuration holds no secret. Tokens are reusable until
 * `expiresAt` (or until removed from the configuration).
 *
 * @example
 * ```ts
 * const token = randomToken(32); // hand it to the operator of the machine client, once
 * const entry: InitialAccessTokenConfig = { tokenHash: sha256Base64url(token), label: 'ci', grantTypes: ['client_credentials'] };
 * ```
 */
export interface InitialAccessTokenConfig {
  /** SHA-256 of the token, base64url without padding (`sha256Base64url(token)` from `@keyhold/core`). */
  readonly tokenHash: string;
  /** A name for logs and for the registration policy; never sent to clients. */
  readonly label: string;
  /**
   * The gated grant types a registration made with this token may use. Absent: every grant type the
   * server supports.
   */
  readonly grantTypes?: readonly string[];
  /** Token-exchange audiences given to clients registered with this token (for the token-exchange grant). */
  readonly tokenExchangeAudiences?: readonly string[];
  /** Epoch ms after which the token is refused (401 `invalid_token`). Absent: no expiry. */
  readonly expiresAt?: number;
}

/**
 * The initial access token a registration presented, as the policy sees it (the hash stays out).
 *
 * @example
 * ```ts
 * const fromCi = (token: PresentedInitialAccessToken | undefined) => token?.label === 'ci';
 * ```
 */
export interface PresentedInitialAccessToken {
  readonly label: string;
  readonly grantTypes?: readonly string[];
  readonly tokenExchangeAudiences?: readonly string[];
}

/**
 * What a {@link RegistrationPolicy} decides on.
 *
 * @example
 * ```ts
 * const policy: RegistrationPolicy = (input: RegistrationPolicyInput) =>
 *   input.initialAccessToken ? { ok: true } : defaultRegistrationPolicy(input);
 * ```
 */
export interface RegistrationPolicyInput {
  /** The tenant slug. */
  readonly tenant: string;
  /** The requested metadata, validated and with defaults filled in. */
  readonly metadata: ClientMetadata;
  /** The registration request as the host passed it (headers lower-cased). */
  readonly request: HandlerRequest;
  /** The valid initial access token presented, if any (an invalid one never reaches the policy). */
  readonly initialAccessToken?: PresentedInitialAccessToken;
  /** The requested grant types that anonymous registration may not use on its own. */
  readonly gatedGrantTypes: readonly string[];
  /**
   * Set when the client is a metadata-document client (CIMD) rather than a `POST /register`: its client_id,
   * the document URL. `metadata` is then the document's, `request` the request that uses the client
   * (`/authorize`, `/token`, …), and the policy runs each time the client is used, not once. Only the grant
   * types (and token-exchange audiences) of a returned `metadata` apply to such a client; a refusal makes it
   * `invalid_client` with the policy's description.
   */
  readonly metadataDocumentUrl?: string;
}

/**
 * A registration policy's answer. `ok: true` allows the registration and may return trimmed (or, for
 * host-vetted callers, widened) metadata, which is checked again against the structural rules; `ok: false`
 * refuses it with `400 invalid_client_metadata` and `description`, which the client sees. Anything else a
 * policy returns is a refusal.
 */
export type RegistrationDecision =
  | { readonly ok: true; readonly metadata?: ClientMetadata }
  | { readonly ok: false; readonly description: string };

/**
 * The host's decision on each dynamic registration. Called after the request is validated, for every
 * registration; its answer is final. Without one, {@link defaultRegistrationPolicy} applies; call it from
 * your policy to keep its rule for the cases you do not handle.
 *
 * @example
 * ```ts
 * const registrationPolicy: RegistrationPolicy = (input) =>
 *   input.tenant === 'internal' && !input.initialAccessToken
 *     ? { ok: false, description: 'registration on this tenant needs an initial access token' }
 *     : defaultRegistrationPolicy(input);
 * ```
 */
export type RegistrationPolicy = (
  input: RegistrationPolicyInput,
) => RegistrationDecision | Promise<RegistrationDecision>;

/**
 * The grant types of `grantTypes` that need a host decision (everything but `authorization_code` and
 * `refresh_token`).
 *
 * @example
 * ```ts
 * gatedGrantTypes(['authorization_code', 'client_credentials']); // ['client_credentials']
 * ```
 */
export function gatedGrantTypes(grantTypes: readonly string[]): readonly string[] {
  return grantTypes.filter((grant) => !ANONYMOUS_GRANT_TYPES.includes(grant));
}

/**
 * The rule that applies without a {@link RegistrationPolicy}: anonymous registrations may use
 * `authorization_code` and `refresh_token` only; gated grants need a valid initial access token that
 * allows them. Clients registered with a token get its `tokenExchangeAudiences`. A metadata-document client
 * (`metadataDocumentUrl`) is not refused for listing gated grants: they are dropped, so it keeps
 * `authorization_code` and `refresh_token` only, whatever its document lists (a document is not a host
 * decision, and nobody can present an initial access token with one).
 *
 * @example
 * ```ts
 * createAuthorizationServer({ ...options, registrationPolicy: (input) => defaultRegistrationPolicy(input) });
 * ```
 */
export function defaultRegistrationPolicy(input: RegistrationPolicyInput): RegistrationDecision {
  const gated = input.gatedGrantTypes;
  if (gated.length === 0) return { ok: true };
  if (input.metadataDocumentUrl !== undefined) {
    return {
      ok: true,
      metadata: {
        ...input.metadata,
        grantTypes: input.metadata.grantTypes.filter((g) => !gated.includes(g)),
      },
    };
  }
  const token = input.initialAccessToken;
  if (!token) {
    return {
      ok: false,
      description: `${gated.join(' and ')} needs a client provisioned by the host or an initial access token`,
    };
  }
  const allowed = token.grantTypes;
  const notCovered = allowed === undefined ? [] : gated.filter((grant) => !allowed.includes(grant));
  if (notCovered.length > 0) {
    return {
      ok: false,
      description: `the initial access token does not allow ${notCovered.join(' and ')}`,
    };
  }
  if (token.tokenExchangeAudiences && gated.includes('urn:ietf:params:oauth:grant-type:token-exchange')) {
    return {
      ok: true,
      metadata: { ...input.metadata, tokenExchangeAudiences: token.tokenExchangeAudiences },
    };
  }
  return { ok: true };
}

/**
 * What the `Authorization` header of a registration request carries: `ok` with the configured token it
 * matches, or `ok` without one when there is no header, since anonymous registration is a normal request
 * that the registration policy then judges; `ok: false` only for a header that is there but not a valid,
 * unexpired token (answered `401 invalid_token`).
 */
export type InitialAccessTokenCheck =
  | { readonly ok: true; readonly token?: PresentedInitialAccessToken }
  | { readonly ok: false; readonly description: string };

// RFC 6750 §2.1 b64token, bounded so hashing a presented value is cheap.
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]{1,512}=*) *$/i;

/**
 * Reads `Authorization: Bearer <initial access token>` and finds the configured token it matches: the
 * presented token's SHA-256 is compared in constant time with every configured hash.
 */
export function checkInitialAccessToken(
  authorization: string | undefined,
  configured: readonly InitialAccessTokenConfig[],
  now: number,
): InitialAccessTokenCheck {
  if (authorization === undefined) return { ok: true };
  const match = BEARER.exec(authorization);
  const presented = match?.[1];
  if (presented === undefined) {
    return {
      ok: false,
      description: 'the registration endpoint accepts a Bearer initial access token',
    };
  }
  const hash = sha256Base64url(presented);
  let found: InitialAccessTokenConfig | undefined;
  for (const entry of configured) {
    // Every entry is compared, so the time taken does not tell which entry (if any) matched.
    if (constantTimeEqual(hash, entry.tokenHash) && found === undefined) found = entry;
  }
  if (!found) return { ok: false, description: 'the initial access token is not valid' };
  if (found.expiresAt !== undefined && found.expiresAt <= now) {
    return { ok: false, description: 'the initial access token has expired' };
  }
  return {
    ok: true,
    token: {
      label: found.label,
      ...(found.grantTypes ? { grantTypes: found.grantTypes } : {}),
      ...(found.tokenExchangeAudiences ? { tokenExchangeAudiences: found.tokenExchangeAudiences } : {}),
    },
  };
}
