import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fuzzOptions, fuzzTimeoutMs, hostileString } from '../../../../test-support/fuzz.js';
import {
  CLAIM_CODE_ALPHABET,
  CLAIM_CODE_LENGTH,
  formatClaimCode,
  normalizeClaimCode,
} from '../../src/code.js';

describe('fuzz: normalizeClaimCode never throws; what it accepts is a stored-form code', () => {
  it(
    'answers any input with a code of the alphabet or a reason and a message without control characters',
    () => {
      const typed = fc
        .array(fc.constantFrom(...`${CLAIM_CODE_ALPHABET}${CLAIM_CODE_ALPHABET.toLowerCase()}- 0OIl1`), {
          maxLength: 10,
        })
        .map((chars) => chars.join(''));
      fc.assert(
        fc.property(fc.oneof(typed, hostileString()), (input) => {
          const result = normalizeClaimCode(input);
          if (result.ok) {
            expect(result.code).toHaveLength(CLAIM_CODE_LENGTH);
            for (const character of result.code) expect(CLAIM_CODE_ALPHABET).toContain(character);
            expect(normalizeClaimCode(formatClaimCode(result.code))).toEqual(result);
          } else {
            const controls = [...result.message].filter(
              (c) => (c.codePointAt(0) ?? 0) < 0x20 || c === '\u007f',
            );
            expect(controls).toEqual([]);
          }
        }),
        fuzzOptions(),
      );
    },
    fuzzTimeoutMs(),
  );
});
