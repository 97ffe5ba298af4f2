/**
 * Opt-in signature verification of one route over the raw body, by the scheme its sender uses.
 *
 * - `standard-webhooks`: `webhook-id`, `webhook-timestamp`, `webhook-signature` (Standard Webhooks v1,
 *   HMAC-SHA256, `whsec_` base64 secrets); deliveries are deduplicated on `webhook-id`.
 * - `github`: `X-Hub-Signature-256: sha256=<hex>` (HMAC-SHA256 of the body with the secret as text);
 *   deliveries are deduplicated on the signature for `dedupeTtlSeconds` (GitHub signs no timestamp).
 * - `stripe`: `Stripe-Signature: t=<seconds>,v1=<hex>` (HMAC-SHA256 of `t.body` with the secret as text);
 *   deliveries are deduplicated on `t` and the signature while `t` is within the tolerance.
 *
 * Several `secrets` may be given so a secret can be rotated without downtime: a signature made with any of
 * them is accepted.
 *
 * @example
 * ```ts
 * const signatures: Record<string, SignatureVerification> = {
 *   'github/push': { scheme: 'github', secrets: [process.env.GITHUB_WEBHOOK_SECRET!] },
 *   'billing/stripe': { scheme: 'stripe', secrets: [stripeSecret], toleranceSeconds: 300 },
 *   'billing/events': { scheme: 'standard-webhooks', secrets: ['whsec_…', 'whsec_…'] },
 * };
 * ```
 */
export type SignatureVerification =
  | StandardWebhooksVerification
  | GitHubSignatureVerification
  | StripeSignatureVerification;

/** Settings every scheme shares. */
export interface SignatureVerificationBase {
  /** The secrets a valid signature may be made with (at least one). */
  readonly secrets: readonly string[];
  /**
   * Also demand `X-Webhook-Secret` when a shared secret is configured (default `false`: the signature
   * alone authenticates the route, since GitHub, Stripe and Standard Webhooks senders cannot add headers).
   */
  readonly requireSharedSecret?: boolean;
}

/** Standard Webhooks (https://www.standardwebhooks.com) verification settings. */
export interface StandardWebhooksVerification extends SignatureVerificationBase {
  readonly scheme: 'standard-webhooks';
  /** Largest accepted distance between `webhook-timestamp` and now, either way (default 300). */
  readonly toleranceSeconds?: number;
  /** How long an accepted `webhook-id` is remembered to drop duplicates (default 86 400, one day). */
  readonly dedupeTtlSeconds?: number;
}

/** GitHub `X-Hub-Signature-256` verification settings. */
export interface GitHubSignatureVerification extends SignatureVerificationBase {
  readonly scheme: 'github';
  /**
   * How long an accepted signature is remembered to drop a replay of the same delivery (default 86 400,
   * one day). GitHub signs no timestamp, so a captured delivery replayed after this window is accepted
   * again: keep it at least as long as your handlers' effects matter, within what the replay cache holds.
   */
  readonly dedupeTtlSeconds?: number;
}

/** Stripe `Stripe-Signature` verification settings. */
export interface StripeSignatureVerification extends SignatureVerificationBase {
  readonly scheme: 'stripe';
  /** Largest accepted distance between the signature's `t` and now, either way (default 300). */
  readonly toleranceSeconds?: number;
}

/**
 * The outcome of checking one request's signature. `replay` is set when the delivery carries an id to
 * deduplicate on.
 */
export type SignatureOutcome =
  | { readonly ok: true; readonly replay?: { readonly id: string; readonly expiresAt: number } }
  | { readonly ok: false; readonly reason: string };

/**
 * A compiled verifier: headers (lower-cased names), the raw body and the receipt time in epoch ms. It may
 * answer at once or asynchronously (the built-in ones sign through WebCrypto, which is async).
 */
export type SignatureVerifier = (
  headers: Readonly<Record<string, string>>,
  body: string,
  nowMs: number,
) => SignatureOutcome | Promise<SignatureOutcome>;
