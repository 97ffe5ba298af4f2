import { describe, expect, it } from 'vitest';
import { createColumnReader, splitScopes } from '../src/column-reader.js';

const json = createColumnReader({ stringArray: (value) => JSON.parse(String(value)) as string[] });
const native = createColumnReader({ stringArray: (value) => [...(value as string[])] });

describe('integers read the same whether the driver gives a number or a decimal string', () => {
  it('reads INTEGER numbers and BIGINT strings as numbers', () => {
    expect(json.integer({ at: 1_700_000_000_123 }, 'at')).toBe(1_700_000_000_123);
    expect(native.integer({ at: '1700000000123' }, 'at')).toBe(1_700_000_000_123);
  });
});

describe('NULL columns read as undefined, never as null or the string "null"', () => {
  it('reads NULL and missing optional columns as undefined', () => {
    const row = { a: null };
    expect(json.optionalText(row, 'a')).toBeUndefined();
    expect(json.optionalInteger(row, 'a')).toBeUndefined();
    expect(json.optionalStringArray(row, 'a')).toBeUndefined();
    expect(native.optionalText({}, 'a')).toBeUndefined();
  });

  it('reads present optional columns, including the empty string and zero', () => {
    expect(json.optionalText({ a: '' }, 'a')).toBe('');
    expect(native.optionalInteger({ a: '0' }, 'a')).toBe(0);
    expect(json.optionalStringArray({ a: '["x"]' }, 'a')).toEqual(['x']);
  });
});

describe('string arrays are decoded by the dialect encoding', () => {
  it('decodes JSON text and copies a native array so callers cannot alias the driver row', () => {
    expect(json.stringArray({ a: '["https://a.example/cb","x y"]' }, 'a')).toEqual([
      'https://a.example/cb',
      'x y',
    ]);
    const driverArray = ['r1', 'r2'];
    const read = native.stringArray({ a: driverArray }, 'a');
    expect(read).toEqual(['r1', 'r2']);
    expect(read).not.toBe(driverArray);
  });
});

describe('space-joined scope columns', () => {
  it('split on single spaces, and the empty string is no scopes', () => {
    expect(splitScopes('read write')).toEqual(['read', 'write']);
    expect(splitScopes('')).toEqual([]);
  });
});
