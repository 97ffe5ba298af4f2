export type { DiscoveryOptions, WebhookRoute, WebhookRouteSource } from './discovery.js';
export { discoverWebhookRoutes } from './discovery.js';
export type { DocumentedMethod } from './doc-comments.js';
export { readDocumentedMethods } from './doc-comments.js';
export type { WebhookErrorCode } from './errors.js';
export { WebhookError } from './errors.js';
export type { WebhookMetadata, WebhookParams } from './metadata.js';
export { DEFAULT_REDACTED_HEADERS, REDACTED } from './metadata.js';
export type { WebhookErrorBodyCode, WebhookResponseBody } from './responses.js';
export { createGitHubVerifier } from './signatures/github.js';
export { createStandardWebhooksVerifier } from './signatures/standard-webhooks.js';
export { createStripeVerifier } from './signatures/stripe.js';
export type {
  GitHubSignatureVerification,
  SignatureOutcome,
  SignatureVerification,
  SignatureVerificationBase,
  SignatureVerifier,
  StandardWebhooksVerification,
  StripeSignatureVerification,
} from './signatures/types.js';
export type { ReadSource } from './source-files.js';
export type { WebhookHandler, WebhookHandlerOptions } from './webhook-handler.js';
export { createWebhookHandler } from './webhook-handler.js';
