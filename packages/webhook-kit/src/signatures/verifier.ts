import { WebhookError } from '../errors.js';
import { check } from '../option-checks.js';
import { createGitHubVerifier } from './github.js';
import { createStandardWebhooksVerifier } from './standard-webhooks.js';
import { createStripeVerifier } from './stripe.js';
import type { SignatureVerification, SignatureVerifier } from './types.js';

const SCHEMES = ['standard-webhooks', 'github', 'stripe'] as const;

function compile(config: SignatureVerification): SignatureVerifier {
  if (typeof config !== 'object' || config === null) throw check.invalid('settings must be an object');
  if (config.requireSharedSecret !== undefined && typeof config.requireSharedSecret !== 'boolean') {
    throw check.invalid('requireSharedSecret must be a boolean');
  }
  switch (config.scheme) {
    case 'standard-webhooks':
      return createStandardWebhooksVerifier(config);
    case 'github':
      return createGitHubVerifier(config);
    case 'stripe':
      return createStripeVerifier(config);
    default:
      throw check.invalid(`scheme must be one of ${SCHEMES.join(', ')}`);
  }
}

/**
 * Validates one route's signature settings and compiles its verifier; throws a {@link WebhookError}
 * (`ERR_INVALID_OPTIONS`, naming the route) for bad settings.
 *
 * @example
 * ```ts
 * const verify = createSignatureVerifier({ scheme: 'github', secrets: [secret] }, 'github/push');
 * ```
 */
export function createSignatureVerifier(config: SignatureVerification, routeKey: string): SignatureVerifier {
  try {
    return compile(config);
  } catch (error) {
    if (!(error instanceof WebhookError)) throw error;
    throw new WebhookError(error.code, `signatures["${routeKey}"]: ${error.message}`, { cause: error });
  }
}
