import { describe, expect, it } from 'vitest';
import { isS256Challenge, verifyPkce } from '../src/pkce.js';

describe('PKCE S256 (RFC 7636)', () => {
  // RFC 7636 Appendix B.
  const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
  const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

  it('verifies the RFC 7636 Appendix B vector', () => {
    expect(isS256Challenge(challenge)).toBe(true);
    expect(verifyPkce(verifier, challenge)).toBe(true);
  });

  it('refuses a verifier that does not hash to the challenge', () => {
    expect(verifyPkce(`${verifier.slice(0, -1)}a`, challenge)).toBe(false);
  });

  it('refuses verifiers shorter than 43 or longer than 128 characters, or outside the unreserved set', () => {
    expect(verifyPkce('a'.repeat(42), challenge)).toBe(false);
    expect(verifyPkce('a'.repeat(129), challenge)).toBe(false);
    expect(verifyPkce(`${verifier.slice(0, -1)}!`, challenge)).toBe(false);
  });

  it('a plain challenge (the verifier itself) is not an S256 challenge shape when longer than 43', () => {
    expect(isS256Challenge('a'.repeat(64))).toBe(false);
  });
});
