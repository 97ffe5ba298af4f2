// Keyhold's shared internals: bundled into each package that uses them at build time, never published.
// What a host calls lives in @keyhold/core.
export type { AesGcm } from './aes-gcm.js';
export { aesGcm, nodeAesGcm, webCryptoAesGcm } from './aes-gcm.js';
export {
  base64Decode,
  base64Encode,
  base64urlDecode,
  base64urlDecodeToString,
  base64urlEncode,
} from './base64url.js';
export type { BodyRead } from './bounded-read.js';
export { discard, raceAbort, readCapped } from './bounded-read.js';
export { BROKER_EVENT_REASONS } from './broker-reasons.js';
export { constantTimeEqual } from './constant-time.js';
export {
  payloadTooLargeResponse,
  readHandlerRequest,
  readRequestBody,
  toResponse,
  userIdOf,
} from './fetch-bridge.js';
export type { FormErrorCode, FormParseOptions, FormParseResult } from './form.js';
export { formEncode, parseForm, parseQuery } from './form.js';
export type { Handler } from './handler.js';
export {
  allowedHostsFor,
  createHostMatcher,
  isAllowedHost,
  isAllowedOrigin,
  isLoopbackHostname,
  loopbackHosts,
  normaliseAllowedHosts,
  originOf,
} from './host-validation.js';
export { escapeHtml } from './html.js';
export { mediaType } from './media-type.js';
export { nodeBuiltin } from './node-builtin.js';
export { onceKey } from './once-key.js';
export type { InvalidOptionsErrorClass, OptionValidators } from './option-validation.js';
export { optionValidators } from './option-validation.js';
export { randomToken } from './random.js';
export type { RateLimitHit } from './rate-limit.js';
export { assertRateLimitRule, consumeRateLimit, rateLimitedResult } from './rate-limit.js';
export {
  htmlResult,
  jsonResult,
  NO_STORE_HEADERS,
  redirectResult,
  storageUnavailableResult,
  textResult,
} from './results.js';
export type { Scrypt } from './scrypt.js';
export { scrypt } from './scrypt.js';
export type { ScryptParameters } from './scrypt-portable.js';
export { scryptPortable } from './scrypt-portable.js';
export { sha256Base64url } from './sha256.js';
export { traceHandler } from './tracing.js';
