import { KeyholdError } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import { expectInvalidOptions } from '../src/testing.js';

class WidgetError extends KeyholdError<'ERR_INVALID_OPTIONS' | 'ERR_OTHER'> {}
class GadgetError extends KeyholdError<'ERR_INVALID_OPTIONS'> {}

describe('expectInvalidOptions passes only for the package error with ERR_INVALID_OPTIONS', () => {
  it('returns the error when create throws it', () => {
    const error = expectInvalidOptions(WidgetError, () => {
      throw new WidgetError('ERR_INVALID_OPTIONS', 'ttlSeconds must be a whole number at least 1');
    });
    expect(error.message).toContain('ttlSeconds');
  });

  it.each([
    ['nothing is thrown', () => {}],
    [
      'another package error is thrown',
      () => {
        throw new GadgetError('ERR_INVALID_OPTIONS', 'x');
      },
    ],
    [
      'another code is thrown',
      () => {
        throw new WidgetError('ERR_OTHER', 'x');
      },
    ],
    [
      'a TypeError is thrown',
      () => {
        throw new TypeError('x');
      },
    ],
  ])('fails when %s', (_, create) => {
    expect(() => expectInvalidOptions(WidgetError, create)).toThrow();
  });
});
