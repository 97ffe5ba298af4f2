/**
 * Shared pieces of the property-based fuzz suites (`packages/* /test/fuzz/*.test.ts`): the run budget, the
 * hostile input generators and the response properties every HTTP handler must keep. See HARDENING.md.
 */
import { validateHeaderName, validateHeaderValue } from 'node:http';
import * as fc from 'fast-check';

/** Cases per property: `FUZZ_RUNS` (CI default 300; `pnpm fuzz:long` runs 10 000). */
export function fuzzRuns(fallback = 300): number {
  const raw = process.env.FUZZ_RUNS;
  if (raw === undefined || raw === '') return fallback;
  const runs = Number(raw);
  if (!Number.isSafeInteger(runs) || runs < 1)
    throw new Error(`FUZZ_RUNS must be a positive integer: ${raw}`);
  return runs;
}

/** The options of every `fc.assert`: the run budget, and `FUZZ_SEED` to replay a failure. */
export function fuzzOptions(runs: number = fuzzRuns()): fc.Parameters<unknown> {
  const seed = process.env.FUZZ_SEED;
  return { numRuns: runs, ...(seed === undefined || seed === '' ? {} : { seed: Number(seed) }) };
}

/** A test timeout that grows with the run budget (long mode runs far more cases than CI). */
export function fuzzTimeoutMs(perCaseMs = 5, runs: number = fuzzRuns()): number {
  return Math.max(30_000, runs * perCaseMs * 2);
}

/** Script payloads that must never reach an HTML body unescaped. */
export const SCRIPT_PAYLOADS: readonly string[] = [
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  "'><svg onload=alert(1)>",
  '</title><script>alert(document.cookie)</script>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '&lt;script&gt;',
  '{{constructor.constructor("alert(1)")()}}',
];

/** Header-injection and response-splitting payloads. */
export const CRLF_PAYLOADS: readonly string[] = [
  '\r\nSet-Cookie: pwned=1',
  '%0d%0aSet-Cookie:%20pwned=1',
  '\nLocation: https://evil.example/',
  '\r\n\r\n<html>split</html>',
  '%E5%98%8A%E5%98%8DSet-Cookie:x',
  '\u010d\u010aX-Injected: 1',
  '\u2028\u2029',
  '\0',
];

/** Redirect targets an attacker would like a server to send a browser to. */
export const HOSTILE_REDIRECTS: readonly string[] = [
  'javascript:alert(1)',
  'JaVaScRiPt:alert(document.domain)',
  ' javascript:alert(1)',
  'java\tscript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
  'vbscript:msgbox(1)',
  'https://evil.example/',
  '//evil.example/',
  '/\\evil.example/',
  'https://evil.example\\@app.example/callback',
  'https://app.example.evil.example/callback',
  'https://app.example@evil.example/callback',
  'http://evil.example/callback',
  'https://app.example/callback\r\nSet-Cookie: x=1',
  'https://app.example/callback#frag',
  'file:///etc/passwd',
];

/** Unicode that trips naive code: lookalikes, bidi overrides, lone surrogates, combining marks, emoji. */
export const UNICODE_PAYLOADS: readonly string[] = [
  '\u202egnp.exe',
  '\ud800',
  '\udfff\ud800',
  'e\u0301\u0301\u0301',
  '\uff1cscript\uff1e',
  '\u0430pp.example',
  '😀'.repeat(50),
  '\ufeff',
  '\u0000\u0001\u001f\u007f',
  'İıſK',
];

/** Any of the hostile payloads above. */
export function payload(): fc.Arbitrary<string> {
  return fc.constantFrom(...SCRIPT_PAYLOADS, ...CRLF_PAYLOADS, ...HOSTILE_REDIRECTS, ...UNICODE_PAYLOADS);
}

/** Raw bytes read as latin1: what a broken or malicious client may put in a body. */
export function randomBytesString(maxLength = 256): fc.Arbitrary<string> {
  return fc.uint8Array({ maxLength }).map((bytes) => Buffer.from(bytes).toString('latin1'));
}

/** A string that is huge: a payload or character repeated up to `maxRepeat` times. */
export function hugeString(maxRepeat = 20_000): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.oneof(payload(), fc.string({ minLength: 1, maxLength: 4 })),
      fc.integer({ min: 1000, max: maxRepeat }),
    )
    .map(([unit, times]) => unit.repeat(Math.ceil(times / Math.max(1, unit.length))));
}

/**
 * A hostile string: payloads, random unicode (full range, lone surrogates included), raw bytes, percent
 * escapes (valid and broken), huge values, and `known` values (real ids, codes, URIs) so the fuzzer also
 * reaches deep into a handler, with a payload glued on either side.
 */
export function hostileString(known: readonly string[] = []): fc.Arbitrary<string> {
  const base: fc.Arbitrary<string>[] = [
    payload(),
    fc.string({ maxLength: 64 }),
    fc.string({ unit: 'binary', maxLength: 64 }),
    randomBytesString(64),
    fc.constantFrom('%', '%zz', '%E0%A4%A', '%C0%AE', '%00', '%0d%0a', '+', '=', '&', '%26', '%3D', '%25'),
  ];
  if (known.length > 0) {
    const k = fc.constantFrom(...known);
    base.push(
      k,
      k,
      fc.tuple(k, payload()).map(([a, b]) => a + b),
      fc.tuple(payload(), k).map(([a, b]) => a + b),
      k.map((value) => value.toUpperCase()),
    );
  }
  return fc.oneof({ weight: 20, arbitrary: fc.oneof(...base) }, { weight: 1, arbitrary: hugeString() });
}

/**
 * A raw form body or query string over `names` (plus random names): values encoded or raw, parameters
 * repeated, empty or without `=`, and sometimes raw garbage instead of a form at all.
 */
export function hostileForm(
  names: readonly string[],
  values: (name: string) => fc.Arbitrary<string> = () => hostileString(),
): fc.Arbitrary<string> {
  const name = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...names) },
    { weight: 1, arbitrary: hostileString() },
  );
  const pair = name.chain((n) =>
    fc
      .tuple(values(n), fc.constantFrom('encoded', 'encoded', 'encoded', 'raw', 'bare'))
      .map(([value, how]) =>
        how === 'bare'
          ? percentEncode(n)
          : `${how === 'raw' ? n : percentEncode(n)}=${how === 'raw' ? value : percentEncode(value)}`,
      ),
  );
  const form = fc
    .array(pair, { maxLength: 12 })
    .chain((pairs) =>
      fc
        .option(fc.constantFrom(...(pairs.length > 0 ? pairs : ['x=1'])), { nil: undefined })
        .map((repeat) => (repeat === undefined ? pairs : [...pairs, repeat, repeat])),
    )
    .map((pairs) => pairs.join('&'));
  return fc.oneof({ weight: 8, arbitrary: form }, { weight: 1, arbitrary: hostileString() });
}

/** A form body or query string of well-formed, correctly encoded parameters, for reaching deep code. */
export function encodedForm(params: fc.Arbitrary<Record<string, string | undefined>>): fc.Arbitrary<string> {
  return params.map((record) => {
    const pairs: string[] = [];
    for (const [name, value] of Object.entries(record)) {
      if (value !== undefined) pairs.push(`${percentEncode(name)}=${percentEncode(value)}`);
    }
    return pairs.join('&');
  });
}

/**
 * `encodeURIComponent` for any string: lone surrogates (which it refuses) are sent as U+FFFD, as a browser
 * sends them.
 */
export function percentEncode(value: string): string {
  return encodeURIComponent(wellFormed(value));
}

/** The string with lone surrogates replaced by U+FFFD (what UTF-8 on the wire can carry). */
export function wellFormed(value: string): string {
  return Buffer.from(value, 'utf8').toString('utf8');
}

/** Tags the Keyhold HTML pages are made of; anything else in a body was injected. */
const PAGE_TAGS = new Set([
  '!doctype',
  'html',
  'head',
  'meta',
  'title',
  'style',
  'body',
  'main',
  'h1',
  'p',
  'code',
  'ul',
  'li',
  'form',
  'input',
  'div',
  'button',
  'strong',
  'section',
  // The consent page's link to the connected-apps page (its href checked below), and that page's own tags.
  'small',
  'a',
  'br',
  'h2',
  'time',
  'span',
]);

/** The handler result shape of `@keyhold/core` (kept structural: this folder is outside every package). */
export interface HandlerResult {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** What {@link assertSafeResult} needs to know about the endpoint. */
export interface SafetyExpectations {
  /** Whether a `location` value is a legitimate target (a registered redirect URI, the server itself). */
  readonly redirectAllowed?: (location: URL) => boolean;
  /** Statuses of 500 and over that this endpoint may legitimately answer (e.g. 502 for a provider outage). */
  readonly allowedServerErrors?: readonly number[];
}

/**
 * The properties every handler keeps for any input: no 5xx, headers a Node server can send (no CR/LF, no
 * control or non-latin1 characters: header injection), a `location` only to an allowed target, and HTML
 * bodies made of the page's own tags only (no injected script, no event-handler attributes).
 */
export function assertSafeResult(result: HandlerResult, expectations: SafetyExpectations = {}): void {
  if (!Number.isInteger(result.status) || result.status < 100 || result.status > 599) {
    throw new Error(`invalid status ${result.status}`);
  }
  if (result.status >= 500 && !(expectations.allowedServerErrors ?? []).includes(result.status)) {
    throw new Error(`server error ${result.status}: ${result.body?.slice(0, 300)}`);
  }
  for (const [name, value] of Object.entries(result.headers)) {
    if (/[\r\n]/.test(value)) throw new Error(`header ${name} carries CR/LF: ${JSON.stringify(value)}`);
    validateHeaderName(name);
    validateHeaderValue(name, value);
    if (name !== name.toLowerCase()) throw new Error(`header name ${name} is not lower-case`);
  }
  const location = result.headers.location;
  if (location !== undefined) {
    if (result.status < 300 || result.status >= 400) throw new Error(`location on a ${result.status}`);
    let target: URL;
    try {
      target = new URL(location);
    } catch {
      throw new Error(`location is not absolute: ${location}`);
    }
    if (!expectations.redirectAllowed?.(target)) throw new Error(`open redirect to ${location}`);
  }
  const type = result.headers['content-type'] ?? '';
  if (type.startsWith('text/html') && result.body !== undefined) assertNoInjectedMarkup(result.body);
  if (type.startsWith('application/json') && result.body !== undefined && result.body !== '') {
    JSON.parse(result.body);
  }
}

/** Throws when an HTML body has a tag the pages never use, an event-handler attribute or a script URL. */
export function assertNoInjectedMarkup(html: string): void {
  for (const match of html.matchAll(/<\/?([a-zA-Z!][^\s/>]*)/g)) {
    const tag = (match[1] ?? '').toLowerCase();
    if (!PAGE_TAGS.has(tag)) throw new Error(`injected <${tag}> in ${html.slice(0, 2000)}`);
  }
  for (const tag of html.matchAll(/<[a-zA-Z][^>]*>/g)) {
    if (/\son[a-z]+\s*=/i.test(tag[0])) throw new Error(`event handler attribute in ${tag[0]}`);
    if (/(?:href|src|action)\s*=\s*["']?\s*(?:javascript|data|vbscript):/i.test(tag[0])) {
      throw new Error(`script URL in ${tag[0]}`);
    }
  }
}

/** Whether `target` is `registered` or, for an http loopback registration, the same but for the port. */
export function matchesRedirectUri(target: URL, registered: string): boolean {
  const base = new URL(registered);
  const samePath = target.pathname === base.pathname && target.username === '' && target.password === '';
  if (!samePath || target.protocol !== base.protocol || target.hash !== '') return false;
  if (target.host === base.host) return true;
  return base.protocol === 'http:' && ['127.0.0.1', '[::1]', 'localhost'].includes(base.hostname)
    ? target.hostname === base.hostname
    : false;
}
