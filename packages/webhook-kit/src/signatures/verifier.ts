import * as z from 'zod';
import { WebhookError } from '../errors.js';
import { createGitHubVerifier } from './github.js';
import { createStandardWebhooksVerifier } from './standard-webhooks.js';
import { createStripeVerifier } from './stripe.js';
import type { SignatureVerification, SignatureVerifier } from './types.js';

const secrets = z.array(z.string().min(1, 'a secret must not be empty')).min(1, 'give at least one secret');
const seconds = z.number().int().positive();

const schema = z.discriminatedUnion('scheme', [
  z.object({
    scheme: z.literal('standard-webhooks'),
    secrets,
    requireSharedSecret: z.boolean().optional(),
    toleranceSeconds: seconds.optional(),
    dedupeTtlSeconds: seconds.optional(),
  }),
  z.object({ scheme: z.literal('github'), secrets, requireSharedSecret: z.boolean().optional() }),
  z.object({
    scheme: z.literal('stripe'),
    secrets,
    requireSharedSecret: z.boolean().optional(),
    toleranceSeconds: seconds.optional(),
  }),
]);

/**
 * Validates one route's signature settings and compiles its verifier; throws a {@link WebhookError}
 * (`ERR_INVALID_OPTIONS`) for bad settings.
 *
 * @example
 * ```ts
 * const verify = createSignatureVerifier({ scheme: 'github', secrets: [secret] }, 'github/push');
 * ```
 */
export function createSignatureVerifier(config: SignatureVerification, routeKey: string): SignatureVerifier {
  const parsed = schema.safeParse(config);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new WebhookError(
      'ERR_INVALID_OPTIONS',
      `signatures["${routeKey}"]: ${issue?.path.join('.') || 'value'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  switch (config.scheme) {
    case 'standard-webhooks':
      return createStandardWebhooksVerifier(config);
    case 'github':
      return createGitHubVerifier(config);
    case 'stripe':
      return createStripeVerifier(config);
  }
}
