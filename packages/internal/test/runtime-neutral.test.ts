import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { randomToken } from '../src/index.js';

describe('encoding, comparison, randomness and key derivation use the web platform only (issue 28)', () => {
  it.each(['base64url.ts', 'constant-time.ts', 'random.ts', 'scrypt.ts', 'scrypt-portable.ts'])(
    '%s names neither Buffer nor a node: module',
    (file) => {
      const source = readFileSync(new URL(`../src/${file}`, import.meta.url), 'utf8');
      expect(source).not.toMatch(/\bBuffer\b/);
      expect(source).not.toMatch(/from 'node:/);
    },
  );

  it('randomToken gives base64url of the asked length, different every time', () => {
    const tokens = new Set(Array.from({ length: 100 }, () => randomToken(16)));
    expect(tokens.size).toBe(100);
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(randomToken()).toHaveLength(43);
    expect(randomToken(1024)).toHaveLength(1366);
  });
});
