import type { HandlerRequest } from '@keyhold/core';
import { OAuthError } from '../errors.js';
import type { ServerContext } from '../options.js';
import type { RequestEvent } from '../request-event.js';
import type { Tenant } from '../tenant.js';
import { checkDpopProof } from './check.js';
import { DpopNonceError } from './nonce-error.js';
import type { VerifiedProof } from './proof.js';

/** A token request's accepted proof, and the nonce to send with the answer when the client's is stale. */
export interface TokenEndpointProof {
  readonly proof: VerifiedProof;
  /** This server's current nonce, for the answer's `DPoP-Nonce` (see `DpopCheck`). */
  readonly nonce?: string;
}

/**
 * The DPoP proof of a token request (RFC 9449 §5), checked whole — signature, claims, nonce, then its `jti`
 * spent — before the grant runs, so nothing single-use (a code, a refresh token, an assertion) is spent by a
 * request whose proof fails or needs a nonce: the client retries with the same grant. `undefined` when the
 * request carries no proof, or when DPoP is off (an authorization server without DPoP ignores the header
 * and issues Bearer tokens, as RFC 9449 §5 allows). Throws `invalid_dpop_proof` or `use_dpop_nonce`.
 */
export async function tokenEndpointProof(
  context: ServerContext,
  tenant: Tenant,
  request: HandlerRequest,
  event: RequestEvent,
): Promise<TokenEndpointProof | undefined> {
  const settings = context.dpop;
  const header = request.headers.dpop;
  if (settings === undefined || header === undefined) return undefined;
  const check = await checkDpopProof(settings, header, {
    method: request.method,
    url: `${tenant.issuer}/token`,
    nonceLabel: `as:${tenant.issuer}`,
    nowMs: context.clock.now(),
  });
  if (check.ok)
    return check.nonce === undefined ? { proof: check.proof } : { proof: check.proof, nonce: check.nonce };
  event.reason = check.reason;
  context.logger.info(
    { event: 'dpop_refused', reason: check.reason, endpoint: 'token', tenant: tenant.slug },
    'DPoP proof refused at the token endpoint',
  );
  if (check.kind === 'nonce') throw new DpopNonceError(check.description, check.nonce);
  throw new OAuthError('invalid_dpop_proof', check.description);
}

/**
 * A client registered with `dpop_bound_access_tokens: true` (RFC 9449 §5.2) gets no token without a proof.
 * Answered `invalid_dpop_proof`, as the conformance suite's planned check and most servers do.
 */
export function requireProofOfBoundClient(
  client: { readonly dpopBoundAccessTokens?: boolean },
  proof: VerifiedProof | undefined,
  event?: RequestEvent,
): void {
  if (client.dpopBoundAccessTokens === true && proof === undefined) {
    if (event !== undefined) event.reason = 'dpop.required_by_client';
    throw new OAuthError('invalid_dpop_proof', 'this client must send a DPoP proof with every token request');
  }
}
