export type { WebhookRoute } from './discovery.js';
export type { WebhookErrorCode } from './errors.js';
export { WebhookError } from './errors.js';
export type { WebhookMetadata, WebhookParams } from './metadata.js';
export { DEFAULT_REDACTED_HEADERS } from './metadata.js';
export { createGitHubVerifier } from './signatures/github.js';
export { createStandardWebhooksVerifier } from './signatures/standard-webhooks.js';
export { createStripeVerifier } from './signatures/stripe.js';
export type {
  GitHubSignatureVerification,
  SignatureOutcome,
  SignatureVerification,
  SignatureVerifier,
  StandardWebhooksVerification,
  StripeSignatureVerification,
} from './signatures/types.js';
export type { ReadSource } from './source-files.js';
export type { WebhookHandler, WebhookHandlerOptions } from './webhook-handler.js';
export { createWebhookHandler } from './webhook-handler.js';
