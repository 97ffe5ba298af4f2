import { describe, expect, it } from 'vitest';
import { formEncode, parseForm, parseQuery } from '../src/form.js';

describe('parseForm: application/x-www-form-urlencoded', () => {
  it('decodes names and values, with + as a space', () => {
    const parsed = parseForm(
      'grant_type=authorization_code&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcb&scope=a+b',
    );
    expect(parsed).toEqual({
      ok: true,
      params: { grant_type: 'authorization_code', redirect_uri: 'http://127.0.0.1/cb', scope: 'a b' },
    });
  });

  it('treats an empty body as no parameters', () => {
    expect(parseForm('')).toEqual({ ok: true, params: {} });
  });

  it('returns a record without a prototype, so __proto__ is a plain key', () => {
    const parsed = parseForm('__proto__=x&constructor=y');
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(Object.getPrototypeOf(parsed.params)).toBeNull();
    // biome-ignore lint/suspicious/noProto: the point is that __proto__ is an ordinary key here
    expect(parsed.params['__proto__']).toBe('x');
    expect(parsed.params['constructor']).toBe('y');
  });
});

describe('RFC 6749 §3.1: parameters MUST NOT be included more than once', () => {
  it('refuses a repeated parameter and names it', () => {
    expect(parseForm('code=a&code=b')).toEqual({
      ok: false,
      error: 'duplicate_parameter',
      parameter: 'code',
      message: 'parameter "code" is repeated',
    });
  });

  it('joins a parameter declared repeatable with a space', () => {
    expect(parseForm('resource=a&resource=b', { repeatable: ['resource'] })).toEqual({
      ok: true,
      params: { resource: 'a b' },
    });
  });
});

describe('RFC 6749 §3.1: parameters sent without a value are treated as omitted', () => {
  it('drops empty values and bare names', () => {
    expect(parseForm('state=&scope&client_id=c')).toEqual({ ok: true, params: { client_id: 'c' } });
  });

  it('does not count an omitted parameter as a repetition', () => {
    expect(parseForm('state=&state=s')).toEqual({ ok: true, params: { state: 's' } });
  });
});

describe('malformed input is refused, never repaired', () => {
  it.each(['a=%zz', 'a=%', 'a=%E0%A4%A', 'a=%FF', '%G1=x'])('refuses %s', (body) => {
    const parsed = parseForm(body);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toBe('malformed_encoding');
  });

  it('refuses more parameters than the limit', () => {
    const body = Array.from({ length: 11 }, (_, i) => `p${i}=v`).join('&');
    const parsed = parseForm(body, { maxParameters: 10 });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toBe('too_many_parameters');
  });
});

describe('control characters are refused: no OAuth parameter admits one, and PostgreSQL refuses NUL', () => {
  it.each([
    ['a NUL in a value', 'client_id=abc%00def'],
    ['a NUL in a name', 'client%00id=abc'],
    ['a raw NUL', 'client_id=abc\u0000'],
    ['a line feed', 'state=a%0Ab'],
    ['an escape (terminal sequences)', 'state=%1B%5B2J'],
    ['DEL', 'state=%7F'],
  ])('refuses %s', (_, body) => {
    const parsed = parseForm(body);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.error).toBe('control_character');
      expect([...parsed.message].every((char) => char >= ' ' && char !== '\u007f')).toBe(true);
    }
  });

  it('refuses them in a query string too', () => {
    expect(parseQuery('?redirect_uri=http%3A%2F%2F127.0.0.1%2F%00')).toMatchObject({
      ok: false,
      error: 'control_character',
      parameter: 'redirect_uri',
    });
  });

  it('accepts tab, line feed and carriage return with allowLineBreaks, and still refuses NUL', () => {
    expect(parseForm('text=a%0D%0Ab%09c', { allowLineBreaks: true })).toEqual({
      ok: true,
      params: { text: 'a\r\nb\tc' },
    });
    expect(parseForm('text=a%00', { allowLineBreaks: true })).toMatchObject({
      ok: false,
      error: 'control_character',
    });
  });

  it('accepts non-ASCII text (only C0 and DEL are controls here)', () => {
    expect(parseForm('name=%C3%A9t%C3%A9')).toEqual({ ok: true, params: { name: 'été' } });
  });
});

describe('parseQuery', () => {
  it('accepts the query with or without its leading ?', () => {
    expect(parseQuery('?a=1')).toEqual(parseQuery('a=1'));
    expect(parseQuery('a=1')).toEqual({ ok: true, params: { a: '1' } });
  });

  it('applies the same repetition rule', () => {
    expect(parseQuery('state=1&state=2').ok).toBe(false);
  });
});

describe('formEncode', () => {
  it('round-trips through parseForm and skips undefined values', () => {
    const encoded = formEncode({
      redirect_uri: 'https://a.example/cb?x=1&y=2',
      scope: 'a b',
      state: undefined,
    });
    expect(parseForm(encoded)).toEqual({
      ok: true,
      params: { redirect_uri: 'https://a.example/cb?x=1&y=2', scope: 'a b' },
    });
  });
});
