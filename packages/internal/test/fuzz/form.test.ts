import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  fuzzOptions,
  fuzzTimeoutMs,
  hostileForm,
  hostileString,
  wellFormed,
} from '../../../../test-support/fuzz.js';
import { escapeHtml, formEncode, parseForm, parseQuery } from '../../src/index.js';

// Control characters are refused by rule (see form.test.ts), so the round-trip properties use text without them.
const printable = (value: string): string =>
  [...wellFormed(value)].filter((char) => char >= ' ' && char !== '\u007f').join('');

const NAMES = ['grant_type', 'code', 'state', 'resource', '__proto__', 'constructor', 'hasOwnProperty'];

describe('fuzz: parseForm / parseQuery (RFC 6749 §3.1) never throw and never repair input', () => {
  it(
    'answers any string with params or a typed refusal, never an exception',
    () => {
      fc.assert(
        fc.property(
          hostileForm(NAMES),
          fc.option(fc.integer({ min: 1, max: 200 }), { nil: undefined }),
          (raw, maxParameters) => {
            for (const parse of [parseForm, parseQuery]) {
              const result = parse(raw, {
                repeatable: ['resource'],
                ...(maxParameters === undefined ? {} : { maxParameters }),
              });
              if (result.ok) {
                expect(Object.getPrototypeOf(result.params)).toBeNull();
                for (const value of Object.values(result.params)) {
                  expect(typeof value).toBe('string');
                  expect(value).not.toBe('');
                }
              } else {
                expect([
                  'control_character',
                  'duplicate_parameter',
                  'malformed_encoding',
                  'too_many_parameters',
                ]).toContain(result.error);
                expect(result.message.length).toBeGreaterThan(0);
              }
            }
          },
        ),
        fuzzOptions(),
      );
    },
    fuzzTimeoutMs(),
  );

  it(
    'round-trips what formEncode wrote (unique names, non-empty values)',
    () => {
      fc.assert(
        fc.property(fc.dictionary(hostileString(NAMES), hostileString(), { maxKeys: 20 }), (record) => {
          const clean: Record<string, string> = {};
          for (const [name, value] of Object.entries(record)) {
            if (printable(name) !== '' && printable(value) !== '') clean[printable(name)] = printable(value);
          }
          const parsed = parseForm(formEncode(clean));
          expect(parsed.ok).toBe(true);
          if (parsed.ok) expect({ ...parsed.params }).toEqual(clean);
        }),
        fuzzOptions(),
      );
    },
    fuzzTimeoutMs(),
  );

  it(
    'refuses a repeated non-repeatable name and joins a repeatable one',
    () => {
      fc.assert(
        fc.property(fc.constantFrom(...NAMES), hostileString(), hostileString(), (name, a, b) => {
          const body = `${encodeURIComponent(name)}=${encodeURIComponent(printable(a) || 'x')}&${encodeURIComponent(name)}=${encodeURIComponent(printable(b) || 'y')}`;
          const parsed = parseForm(body, { repeatable: ['resource'] });
          expect(parsed.ok).toBe(name === 'resource');
        }),
        fuzzOptions(),
      );
    },
    fuzzTimeoutMs(),
  );
});

describe('fuzz: a control character anywhere in a name or value is refused', () => {
  it(
    'refuses any C0 control or DEL, percent-encoded or raw',
    () => {
      fc.assert(
        fc.property(
          hostileString(),
          fc.integer({ min: 0, max: 0x20 }).map((code) => String.fromCharCode(code === 0x20 ? 0x7f : code)),
          fc.boolean(),
          (text, control, raw) => {
            const value = `${printable(text)}${control}`;
            const body = `state=${raw ? value.replaceAll('%', '%25').replaceAll('&', '%26') : encodeURIComponent(value)}`;
            expect(parseForm(body)).toMatchObject({ ok: false, error: 'control_character' });
          },
        ),
        fuzzOptions(),
      );
    },
    fuzzTimeoutMs(),
  );
});

describe('fuzz: escapeHtml leaves no character that opens markup or an attribute', () => {
  it(
    'never outputs <, >, " or \' and is reversible',
    () => {
      fc.assert(
        fc.property(hostileString(), (value) => {
          const escaped = escapeHtml(value);
          expect(escaped).not.toMatch(/[<>"']/);
          const back = escaped
            .replaceAll('&lt;', '<')
            .replaceAll('&gt;', '>')
            .replaceAll('&quot;', '"')
            .replaceAll('&#39;', "'")
            .replaceAll('&#x27;', "'")
            .replaceAll('&amp;', '&');
          expect(back).toBe(value);
        }),
        fuzzOptions(),
      );
    },
    fuzzTimeoutMs(),
  );
});
