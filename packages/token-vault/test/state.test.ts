import { sha256Base64url } from '@keyhold/internal';
import { describe, expect, it } from 'vitest';
import { createOpaqueState, isOpaqueState, STATE_MAX_AGE_MS, stateHash } from '../src/state.js';

describe('The third-party state is an opaque reference (issue 15 item 7)', () => {
  it('is 32 random bytes in base64url: 43 characters, different every time', () => {
    const states = new Set(Array.from({ length: 100 }, () => createOpaqueState()));
    expect(states.size).toBe(100);
    for (const state of states) {
      expect(state).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(state, 'base64url')).toHaveLength(32);
      expect(isOpaqueState(state)).toBe(true);
    }
  });

  it('refuses anything else as a state', () => {
    for (const state of [
      '',
      'AAAA',
      'a'.repeat(42),
      'a'.repeat(44),
      `${'a'.repeat(42)}=`,
      `${'a'.repeat(42)}+`,
    ]) {
      expect(isOpaqueState(state)).toBe(false);
    }
  });

  it('the pending authorization is keyed by the SHA-256 of the state, so the store never holds the state', () => {
    const state = createOpaqueState();
    expect(stateHash(state)).toBe(sha256Base64url(state));
    expect(stateHash(state)).not.toContain(state);
  });

  it('an authorization may take five minutes', () => {
    expect(STATE_MAX_AGE_MS).toBe(300_000);
  });
});
