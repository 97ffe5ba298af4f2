import { BROKER_EVENT_REASONS } from '@keyhold/internal';

/**
 * Reason codes, version 1.1 (README "Events and reason codes v1.1"). A code once published keeps its meaning;
 * new codes may be added (or reserved ones first emitted) in a minor release, which bumps the minor version;
 * none is removed before a major one. v1.1 emits `grant.created`, `grant.used`, `client.unblocked` and
 * `grant.revoked.client_blocked`, and `client.blocked` also for the block itself (category `client`). The `mcp_auth.events`
 * counter and the timeline accept only these strings, so the metric's `reason` attribute has a bounded set
 * of values: anything else is reported as `other`.
 *
 * @example
 * ```ts
 * if (!AUTH_EVENT_REASONS.includes(decision.reason)) console.warn('unexpected reason', decision.reason);
 * ```
 */
export const AUTH_EVENT_REASONS: readonly string[] = Object.freeze([
  'other',
  // Successes, one per kind of decision.
  'authorize.consent_shown',
  'authorize.login_redirect',
  'authorize.approved',
  'consent.page_shown',
  'consent.approved',
  'consent.denied',
  'token.issued',
  'introspection.active',
  'introspection.inactive',
  'revocation.accepted',
  'client.registered',
  'userinfo.served',
  // Refusals the handlers name (the OAuth error code stays in `errorCode`).
  'request.invalid_request',
  'request.invalid_client',
  'request.invalid_grant',
  'request.unauthorized_client',
  'request.unsupported_grant_type',
  'request.unsupported_response_type',
  'request.invalid_scope',
  'request.invalid_target',
  'request.access_denied',
  'request.invalid_token',
  'request.insufficient_scope',
  'request.invalid_redirect_uri',
  'request.invalid_client_metadata',
  'request.rate_limited',
  'request.temporarily_unavailable',
  'request.server_error',
  'request.unknown_tenant',
  'request.request_not_supported',
  'request.request_uri_not_supported',
  'request.login_required',
  'request.consent_required',
  'request.invalid_dpop_proof',
  'request.use_dpop_nonce',
  'request.not_found',
  'consent.expired',
  'consent.forged',
  'consent.wrong_user',
  'client.authentication_failed',
  // Category `client` for an administrator's block and unblock (v1.1); `client.blocked` is also the refusal.
  'client.blocked',
  'client.unblocked',
  'broker.login_failed',
  // Brokered logins: @keyhold/token-vault's catalogue (its README), for a host that appends the broker's
  // events to this timeline or counts them. Written once in @keyhold/internal, which both packages bundle.
  ...BROKER_EVENT_REASONS,
  // Grants (opened, used: v1.1; server.grants, blocks, refresh-token reuse).
  'grant.created',
  'grant.used',
  'grant.revoked.user',
  'grant.revoked.admin',
  'grant.revoked.family_reuse',
  'grant.revoked.client_blocked',
  'grant.revoked.consent_deleted',
  'grant.revoked.security',
  // Resource refusals by the bearer policy.
  'token.rejected.invalid',
  'token.rejected.expired',
  'token.rejected.revoked',
  'token.rejected.grant_revoked',
  'token.rejected.client_blocked',
  'token.rejected.wrong_resource',
  'token.rejected.insufficient_scope',
  // DPoP (RFC 9449).
  'dpop.proof_missing',
  'dpop.proof_malformed',
  'dpop.typ_invalid',
  'dpop.alg_unsupported',
  'dpop.signature_invalid',
  'dpop.jwk_private',
  'dpop.claim_missing',
  'dpop.htm_mismatch',
  'dpop.htu_mismatch',
  'dpop.iat_out_of_window',
  'dpop.replayed',
  'dpop.nonce_required',
  'dpop.nonce_invalid',
  'dpop.ath_mismatch',
  'dpop.key_mismatch',
  'dpop.bearer_downgrade',
  'dpop.required_by_client',
  'dpop.dpop_jkt_mismatch',
  'dpop.jti_invalid',
  'dpop.jwk_invalid',
  'dpop.multiple_headers',
  'dpop.too_large',
  // The jwt-bearer grant (RFC 7523): the assertion before a pipeline is chosen by its typ.
  'jwt_bearer.assertion_missing',
  'jwt_bearer.grant_not_allowed',
  'jwt_bearer.malformed',
  'jwt_bearer.typ_not_accepted',
  // Enterprise-Managed Authorization (ID-JAG): the codes the pipeline sets (packages/oauth-core/src/jwt-bearer).
  'id_jag.alg_not_allowed',
  'id_jag.audience_mismatch',
  'id_jag.authorization_details_unsupported',
  'id_jag.claim_invalid',
  'id_jag.client_mismatch',
  'id_jag.client_not_allowed',
  'id_jag.cnf_mismatch',
  'id_jag.cnf_unsupported',
  'id_jag.expired',
  'id_jag.issued_in_future',
  'id_jag.issuer_not_trusted',
  'id_jag.key_not_found',
  'id_jag.keys_unavailable',
  'id_jag.lifetime_too_long',
  'id_jag.not_yet_valid',
  'id_jag.replay_store_missing',
  'id_jag.replayed',
  'id_jag.resource_mismatch',
  'id_jag.scope_malformed',
  'id_jag.scope_mismatch',
  'id_jag.signature_invalid',
  'id_jag.subject_invalid',
  'id_jag.subject_unknown',
  // Workload identity federation: the codes the workload pipeline sets (packages/oauth-core/src/jwt-bearer).
  'workload.issuer_not_trusted',
  'workload.subject_not_allowed',
  'workload.scope_not_allowed',
  'workload.jwks_unreachable',
  'workload.signature_failed',
  'workload.expired',
  'workload.replayed',
  'workload.alg_not_allowed',
  'workload.audience_mismatch',
  'workload.claim_invalid',
  'workload.cnf_mismatch',
  'workload.id_token_refused',
  'workload.issued_in_future',
  'workload.key_not_found',
  'workload.lifetime_too_long',
  'workload.not_yet_valid',
  'workload.replay_store_missing',
  'workload.resource_not_allowed',
]);

const KNOWN: ReadonlySet<string> = new Set(AUTH_EVENT_REASONS);

/** `reason` when the catalogue has it, else `other`: what keeps the metric's cardinality bounded. */
export function catalogued(reason: string | undefined): string {
  return reason !== undefined && KNOWN.has(reason) ? reason : 'other';
}
