export type { Area, RawArea, RawHandler, RawRequest } from './area.js';
export { compose, RAW_HANDLER, rawHandlerOf } from './area.js';
export { base64urlDecode, base64urlDecodeToString, base64urlEncode } from './base64url.js';
export type { BodyRead } from './bounded-read.js';
export { discard, raceAbort, readCapped } from './bounded-read.js';
export type { Clock, ManualClock } from './clock.js';
export { createManualClock, systemClock } from './clock.js';
export { constantTimeEqual } from './constant-time.js';
export type { CoreErrorCode } from './errors.js';
export { CoreError, KeyholdError, PayloadTooLargeError, StorageUnavailableError } from './errors.js';
export type { FetchHandler, FetchRequestInfo, UserIdSource } from './fetch-bridge.js';
export {
  payloadTooLargeResponse,
  readHandlerRequest,
  readRequestBody,
  toResponse,
  userIdOf,
} from './fetch-bridge.js';
export type { FormErrorCode, FormParseOptions, FormParseResult } from './form.js';
export { formEncode, parseForm, parseQuery } from './form.js';
export type { Handler, HandlerRequest, HandlerResult } from './handler.js';
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
export type { Logger, LogMethod } from './logger.js';
export { silentLogger } from './logger.js';
export { mediaType } from './media-type.js';
export type { OAuthAsk } from './oauth-ask.js';
export type { MemoryOnceStoreOptions, OnceStore } from './once-store.js';
export { createMemoryOnceStore, onceKey } from './once-store.js';
export type { InvalidOptionsErrorClass, OptionValidators } from './option-validation.js';
export { optionValidators } from './option-validation.js';
export { randomToken } from './random.js';
export type {
  MemoryRateLimiterOptions,
  RateLimiter,
  RateLimitHit,
  RateLimitOutcome,
  RateLimitRule,
} from './rate-limit.js';
export {
  assertRateLimitRule,
  consumeRateLimit,
  createMemoryRateLimiter,
  rateLimitedResult,
} from './rate-limit.js';
export {
  htmlResult,
  jsonResult,
  NO_STORE_HEADERS,
  redirectResult,
  storageUnavailableResult,
  textResult,
} from './results.js';
export { sha256Base64url } from './sha256.js';
export type { ToolModule } from './tool-module.js';
export type { RequestOutcome, RequestTracing } from './tracing.js';
export { traceHandler } from './tracing.js';
