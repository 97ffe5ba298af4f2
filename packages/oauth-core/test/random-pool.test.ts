import { describe, expect, it } from 'vitest';
import { newClientId, pooledRandomToken } from '../src/random-pool.js';

describe('pooled random tokens are WebCrypto randomness, each byte handed out once', () => {
  it('gives base64url values of the asked length, never the same twice across pool refills', () => {
    const seen = new Set<string>();
    // 1,000 × 32 bytes is about eight refills of the 4 KiB pool.
    for (let i = 0; i < 1000; i++) {
      const token = pooledRandomToken();
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      seen.add(token);
    }
    expect(seen.size).toBe(1000);
    expect(pooledRandomToken(16)).toHaveLength(22);
    expect(pooledRandomToken(256)).toHaveLength(342);
  });
});

describe('client ids never start with "-", which a command line would read as an option', () => {
  it('draws 5,000 ids of 22 characters, none starting with "-"', () => {
    for (let i = 0; i < 5000; i++) {
      const id = newClientId();
      expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
    }
  });
});
