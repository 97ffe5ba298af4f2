import { randomToken, sha256Base64url } from '@keyhold/internal';

/**
 * How long a third-party authorization may take, from the connect step's redirect to the provider until
 * the callback (five minutes). The pending authorization's `expiresAt` is set this far ahead.
 */
export const STATE_MAX_AGE_MS: number = 5 * 60 * 1000;

const STATE_BYTES = 32;
// base64url without padding of 32 bytes: 43 characters.
const OPAQUE_STATE = /^[A-Za-z0-9_-]{43}$/;

/**
 * The `state` sent to a provider: 32 random bytes, base64url. It is an opaque reference and carries nothing
 * readable (no session, user, tenant or elicitation id); everything the callback needs is stored server-side
 * in the pending authorization, found by {@link stateHash} and consumed once.
 */
export function createOpaqueState(): string {
  return randomToken(STATE_BYTES);
}

/** Whether a received `state` has the shape {@link createOpaqueState} produces. */
export function isOpaqueState(state: string): boolean {
  return OPAQUE_STATE.test(state);
}

/** The key of the pending authorization a state refers to: base64url SHA-256 of the state. */
export function stateHash(state: string): string {
  return sha256Base64url(state);
}
