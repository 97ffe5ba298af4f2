import { describe, expect, it } from 'vitest';
import { CLAIM_CODE_ALPHABET, formatClaimCode, generateClaimCode, normalizeClaimCode } from '../src/code.js';

describe('codes: 6 characters from the alphabet without 0, O, 1, I, L', () => {
  it('uses exactly the 31 characters 2-9 and A-Z minus I, L, O', () => {
    expect(CLAIM_CODE_ALPHABET).toBe('23456789ABCDEFGHJKMNPQRSTUVWXYZ');
    expect(CLAIM_CODE_ALPHABET).not.toMatch(/[01OIL]/);
  });

  it('generates 6 characters of the alphabet, stored without a dash', () => {
    for (let i = 0; i < 2_000; i++) {
      expect(generateClaimCode()).toMatch(/^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{6}$/);
    }
  });

  it('draws every character of the alphabet in every position', () => {
    const seen = Array.from({ length: 6 }, () => new Set<string>());
    for (let i = 0; i < 5_000; i++) {
      const code = generateClaimCode();
      for (let p = 0; p < 6; p++) seen[p]?.add(code[p] ?? '');
    }
    for (const position of seen) expect(position.size).toBe(31);
  });

  it('draws each character equally often (no modulo bias towards the first eight)', () => {
    const counts = new Map<string, number>();
    const codes = 60_000;
    for (let i = 0; i < codes; i++)
      for (const c of generateClaimCode()) counts.set(c, (counts.get(c) ?? 0) + 1);
    const expected = (codes * 6) / 31;
    // A byte taken modulo 31 would draw the first eight characters 12.5 % more often than the rest; chance
    // alone stays within about 1 % (one standard deviation) here.
    for (const c of CLAIM_CODE_ALPHABET)
      expect(Math.abs((counts.get(c) ?? 0) / expected - 1), c).toBeLessThan(0.05);
  });
});

describe('codes: shown ABC-DEF, input normalised', () => {
  it('shows a stored code with a dash after the third character', () => {
    expect(formatClaimCode('ABCDEF')).toBe('ABC-DEF');
  });

  it.each(['abc-def', 'ABCDEF', 'ABC-DEF', '  abc-DEF \n', 'abcdef'])('reads %j as ABCDEF', (input) => {
    expect(normalizeClaimCode(input)).toEqual({ ok: true, code: 'ABCDEF' });
  });

  it.each([
    ['AB0-DEF', '"0"'],
    ['ABO-DEF', '"O"'],
    ['abo-def', '"o"'],
    ['AB1DEF', '"1"'],
    ['ABI-DEF', '"I"'],
    ['ABl-DEF', '"l"'],
  ])('names the lookalike character in %j', (input, named) => {
    const result = normalizeClaimCode(input);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.reason).toBe('lookalike');
      expect(result.message).toContain(named);
    }
  });

  it('names a character that is no claim-code character at all', () => {
    const result = normalizeClaimCode('AB@-DEF');
    expect(result).toMatchObject({ ok: false, reason: 'invalid_character' });
    if (!result.ok) expect(result.message).toContain('"@"');
  });

  it('refuses the wrong length and says how long a code is', () => {
    const result = normalizeClaimCode('ABC-DE');
    expect(result).toMatchObject({ ok: false, reason: 'length' });
    if (!result.ok) expect(result.message).toContain('6 characters');
  });

  it('refuses a dash anywhere but after the third character, and inner spaces', () => {
    expect(normalizeClaimCode('AB-CDEF')).toMatchObject({ ok: false, reason: 'dash' });
    expect(normalizeClaimCode('ABC--DEF')).toMatchObject({ ok: false });
    expect(normalizeClaimCode('ABC DEF')).toMatchObject({ ok: false, reason: 'invalid_character' });
  });

  it('refuses empty input', () => {
    expect(normalizeClaimCode('   ')).toMatchObject({ ok: false, reason: 'empty' });
  });
});
