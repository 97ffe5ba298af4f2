export type { ClaimAttemptGate, ClaimFailureRateLimit } from './claim-attempts.js';
export { createClaimAttemptGate } from './claim-attempts.js';
export type { ClaimRevocation, Claims, ClaimsOptions, ClaimValidation, CreateClaimInput } from './claims.js';
export { createClaims } from './claims.js';
export { formatClaimCode } from './code.js';
export type { ClaimCodesErrorCode } from './errors.js';
export { ClaimCodesError } from './errors.js';
export { createMemoryClaimStore } from './memory-store.js';
export type { ClaimRecord, ClaimStore } from './storage.js';
