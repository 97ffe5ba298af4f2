import { describe, expect, it } from 'vitest';
import { createPkcePair, s256Challenge } from '../src/pkce.js';

describe('PKCE: 32 random bytes base64url as verifier, S256 challenge (RFC 7636)', () => {
  it('matches the RFC 7636 appendix B vector', () => {
    expect(s256Challenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
  });

  it('creates a 43-character verifier (32 bytes) and its S256 challenge, fresh each time', () => {
    const pair = createPkcePair();
    expect(pair.codeVerifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(pair.codeVerifier, 'base64url')).toHaveLength(32);
    expect(pair.codeChallenge).toBe(s256Challenge(pair.codeVerifier));
    expect(pair.codeChallengeMethod).toBe('S256');
    expect(createPkcePair().codeVerifier).not.toBe(pair.codeVerifier);
  });
});
