import { describe, expect, it } from 'vitest';
import type { StatePayload } from '../src/index.js';
import { STATE_MAX_AGE_MS, signState, verifyState } from '../src/index.js';

const secret = Buffer.from('a-state-secret-of-at-least-32-bytes!!');
const T = Date.parse('2026-03-01T12:00:00Z');
const payload: StatePayload = {
  sessionId: 's',
  elicitationId: 'e',
  toolModuleId: 'p',
  provider: 'acme',
  nonce: 'n0nce',
  timestamp: T,
  tenantId: 't',
  userId: 'u',
};

describe('Signed state: base64url(payload | HMAC-SHA256), at most 5 minutes old', () => {
  it('is base64url of the JSON payload, a | byte and the 32-byte HMAC-SHA256 of the payload', async () => {
    const state = signState(payload, secret);
    expect(state).toMatch(/^[A-Za-z0-9_-]+$/);
    const bytes = Buffer.from(state, 'base64url');
    const json = bytes.subarray(0, bytes.length - 33);
    expect(JSON.parse(json.toString())).toEqual(payload);
    expect(bytes[bytes.length - 33]).toBe('|'.charCodeAt(0));
    const { createHmac } = await import('node:crypto');
    expect(bytes.subarray(bytes.length - 32)).toEqual(createHmac('sha256', secret).update(json).digest());
  });

  it('verifies and returns the payload', () => {
    expect(verifyState(signState(payload, secret), secret, T + 1000)).toEqual({ ok: true, payload });
  });

  it('accepts exactly 5 minutes, refuses older', () => {
    const state = signState(payload, secret);
    expect(verifyState(state, secret, T + STATE_MAX_AGE_MS).ok).toBe(true);
    expect(verifyState(state, secret, T + STATE_MAX_AGE_MS + 1)).toEqual({ ok: false, reason: 'expired' });
  });

  it('refuses a state from the future beyond a minute of clock skew', () => {
    expect(verifyState(signState(payload, secret), secret, T - 2 * 60_000)).toEqual({
      ok: false,
      reason: 'expired',
    });
  });

  it('refuses a changed payload, another secret, and garbage', () => {
    const bytes = Buffer.from(signState(payload, secret), 'base64url');
    bytes[5]! ^= 1;
    expect(verifyState(bytes.toString('base64url'), secret, T)).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    expect(verifyState(signState(payload, Buffer.from('x'.repeat(32))), secret, T).ok).toBe(false);
    expect(verifyState('', secret, T)).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyState('not base64url!', secret, T)).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyState('AAAA', secret, T)).toEqual({ ok: false, reason: 'malformed' });
  });
});
