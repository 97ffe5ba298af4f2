import { KeyholdError } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../src/html.js';
import { mediaType } from '../src/media-type.js';
import { randomToken } from '../src/random.js';
import { htmlResult, jsonResult, NO_STORE_HEADERS, redirectResult } from '../src/results.js';

// Misuse by code throws CoreError ERR_INVALID_OPTIONS, as every Keyhold option check does.
const INVALID_OPTIONS = expect.objectContaining({ name: 'CoreError', code: 'ERR_INVALID_OPTIONS' });

describe('result helpers', () => {
  it('jsonResult omits undefined members and sets the JSON content type', () => {
    const result = jsonResult(
      400,
      { error: 'invalid_request', error_description: undefined },
      NO_STORE_HEADERS,
    );
    expect(result.body).toBe('{"error":"invalid_request"}');
    expect(result.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(result.headers['cache-control']).toBe('no-store');
  });

  it('htmlResult forbids framing and caching', () => {
    const result = htmlResult(200, '<p>hi</p>');
    expect(result.headers['x-frame-options']).toBe('DENY');
    expect(result.headers['cache-control']).toBe('no-store');
    expect(result.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });

  it('redirectResult is a 302 with the location', () => {
    expect(redirectResult('https://a.example/')).toEqual({
      status: 302,
      headers: { location: 'https://a.example/', 'cache-control': 'no-store' },
    });
  });
});

describe('escapeHtml', () => {
  it('escapes the five HTML-significant characters', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });
});

describe('mediaType', () => {
  it('lower-cases and drops parameters', () => {
    expect(mediaType('Application/JSON; charset=UTF-8')).toBe('application/json');
    expect(mediaType(undefined)).toBeUndefined();
    expect(mediaType('  ')).toBeUndefined();
  });
});

describe('randomToken', () => {
  it('gives 43 base64url characters for 32 bytes, different each time', () => {
    const a = randomToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(randomToken()).not.toBe(a);
  });

  it('refuses fewer than 16 bytes', () => {
    expect(() => randomToken(8)).toThrow(INVALID_OPTIONS);
  });
});

describe('KeyholdError', () => {
  it('carries a code and its subclass name', () => {
    class VaultError extends KeyholdError<'ERR_X'> {}
    const error = new VaultError('ERR_X', 'boom', { cause: 1 });
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe('ERR_X');
    expect(error.name).toBe('VaultError');
    expect(error.cause).toBe(1);
  });
});
