import { KeyholdError } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import { optionValidators } from '../src/index.js';

class WidgetError extends KeyholdError<'ERR_INVALID_OPTIONS'> {}
const check = optionValidators(WidgetError);

function thrown(run: () => unknown): WidgetError {
  try {
    run();
  } catch (error) {
    if (error instanceof WidgetError) return error;
    throw error;
  }
  throw new Error('expected a WidgetError');
}

describe('a bad option throws the package’s own error with ERR_INVALID_OPTIONS, naming the option', () => {
  it('uses the error class it was given', () => {
    const error = thrown(() => check.positiveInteger('ttlSeconds', 0, 10));
    expect(error.code).toBe('ERR_INVALID_OPTIONS');
    expect(error.name).toBe('WidgetError');
    expect(error.message).toContain('ttlSeconds');
  });
  it('invalid() builds the same error for checks of the package’s own', () => {
    expect(check.invalid('x is wrong')).toBeInstanceOf(WidgetError);
  });
});

describe('positiveInteger accepts safe integers from 1, and the fallback when omitted', () => {
  it.each([1, 60, Number.MAX_SAFE_INTEGER])('accepts %d', (value) => {
    expect(check.positiveInteger('n', value, 5)).toBe(value);
  });
  it('uses the fallback for undefined', () => expect(check.positiveInteger('n', undefined, 5)).toBe(5));
  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60])('refuses %d', (value) => {
    expect(thrown(() => check.positiveInteger('n', value, 5)).code).toBe('ERR_INVALID_OPTIONS');
  });
});

describe('integerInRange checks both bounds, inclusive', () => {
  it('accepts the bounds', () => {
    expect(check.integerInRange('w', 0, 5, { min: 0, max: 300 })).toBe(0);
    expect(check.integerInRange('w', 300, 5, { min: 0, max: 300 })).toBe(300);
  });
  it('refuses one past either bound and says the range', () => {
    expect(() => check.integerInRange('w', -1, 5, { min: 0, max: 300 })).toThrow(/from 0 to 300/);
    expect(() => check.integerInRange('w', 301, 5, { min: 0, max: 300 })).toThrow(WidgetError);
  });
});

describe('absoluteUrl accepts absolute http(s) URLs without a fragment', () => {
  it('returns the parsed URL', () => {
    expect(check.absoluteUrl('baseUrl', 'https://auth.example/x').href).toBe('https://auth.example/x');
  });
  it.each(['/relative', 'not a url', 'ftp://files.example/', 'https://auth.example/#frag'])(
    'refuses %s',
    (value) => {
      expect(thrown(() => check.absoluteUrl('baseUrl', value)).message).toContain('baseUrl');
    },
  );
  it('with requireHttps, refuses plain http except on a loopback host', () => {
    expect(() => check.absoluteUrl('u', 'http://auth.example/', { requireHttps: true })).toThrow(/https/);
    for (const loopback of ['http://localhost:3000/', 'http://127.0.0.1/', 'http://[::1]:8080/']) {
      expect(check.absoluteUrl('u', loopback, { requireHttps: true }).protocol).toBe('http:');
    }
  });
});
