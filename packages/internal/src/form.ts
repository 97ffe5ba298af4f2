/** Why a form body or query string was refused. */
export type FormErrorCode =
  | 'control_character'
  | 'duplicate_parameter'
  | 'malformed_encoding'
  | 'too_many_parameters';

/**
 * The outcome of {@link parseForm} and {@link parseQuery}: the parameters, or why they were refused.
 */
export type FormParseResult =
  | { readonly ok: true; readonly params: Readonly<Record<string, string>> }
  | {
      readonly ok: false;
      readonly error: FormErrorCode;
      readonly parameter?: string;
      readonly message: string;
    };

/** Options of {@link parseForm} and {@link parseQuery}. */
export interface FormParseOptions {
  /** At most this many parameters are accepted (default 100). */
  maxParameters?: number;
  /**
   * Names that may legitimately repeat (RFC 8707 `resource`, for instance). Their values are joined with
   * a single space; every other repeated name is refused.
   */
  repeatable?: readonly string[];
  /**
   * Accept tab, line feed and carriage return in values (text a person typed, in a webhook payload for
   * instance). Default `false`. NUL, the other C0 controls and DEL are refused either way.
   */
  allowLineBreaks?: boolean;
}

// No OAuth parameter admits a control character (RFC 6749 Appendix A: VSCHAR, NQSCHAR, NQB), and PostgreSQL
// refuses NUL in text, so one let through would reach a store as a 500 rather than a 400.
function isControl(code: number, allowLineBreaks: boolean): boolean {
  if (code === 0x7f) return true;
  if (code >= 0x20) return false;
  return !(allowLineBreaks && (code === 0x09 || code === 0x0a || code === 0x0d));
}

function hasControlCharacter(text: string, allowLineBreaks: boolean): boolean {
  for (let i = 0; i < text.length; i++) if (isControl(text.charCodeAt(i), allowLineBreaks)) return true;
  return false;
}

// The name as it may be shown in a message or log: every control character a "?".
function printable(name: string): string {
  let out = '';
  for (const char of name) out += isControl(char.charCodeAt(0), false) ? '?' : char;
  return out;
}

function decodeComponent(raw: string): string | undefined {
  // Most names and values (grant types, client ids, tokens) carry neither: nothing to decode, nothing to copy.
  if (!raw.includes('%') && !raw.includes('+')) return raw;
  try {
    return decodeURIComponent(raw.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

/**
 * Parses an `application/x-www-form-urlencoded` body strictly, as RFC 6749 §3.1 asks of OAuth endpoints:
 * a repeated parameter is an error, a parameter without a value is treated as omitted, and a malformed
 * percent-escape or invalid UTF-8 is an error rather than silently repaired, and so is a control character
 * (C0 or DEL, decoded or raw) in a name or value. The returned record has no prototype, so names such as
 * `__proto__` are plain keys.
 *
 * @example
 * ```ts
 * const parsed = parseForm(request.body);
 * if (!parsed.ok) return oauthError(400, 'invalid_request', parsed.message);
 * parsed.params.grant_type;
 * ```
 */
export function parseForm(body: string, options: FormParseOptions = {}): FormParseResult {
  const maxParameters = options.maxParameters ?? 100;
  const repeatable = options.repeatable ?? [];
  const allowLineBreaks = options.allowLineBreaks === true;
  const params: Record<string, string> = Object.create(null);
  if (body === '') return { ok: true, params };
  const pairs = body.split('&');
  if (pairs.length > maxParameters) {
    return { ok: false, error: 'too_many_parameters', message: `more than ${maxParameters} parameters` };
  }
  for (const pair of pairs) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decodeComponent(eq === -1 ? pair : pair.slice(0, eq));
    const value = eq === -1 ? '' : decodeComponent(pair.slice(eq + 1));
    if (name === undefined || value === undefined) {
      return { ok: false, error: 'malformed_encoding', message: 'malformed percent-encoding' };
    }
    if (hasControlCharacter(name, allowLineBreaks) || hasControlCharacter(value, allowLineBreaks)) {
      const shown = printable(name);
      return {
        ok: false,
        error: 'control_character',
        parameter: shown,
        message: `parameter "${shown}" contains a control character`,
      };
    }
    if (value === '') continue;
    if (Object.hasOwn(params, name)) {
      if (repeatable.includes(name)) {
        params[name] = `${params[name]} ${value}`;
        continue;
      }
      return {
        ok: false,
        error: 'duplicate_parameter',
        parameter: name,
        message: `parameter "${name}" is repeated`,
      };
    }
    params[name] = value;
  }
  return { ok: true, params };
}

/**
 * Parses a raw query string (with or without the leading `?`) by the rules of {@link parseForm}.
 *
 * @example
 * ```ts
 * const parsed = parseQuery(request.query);
 * if (parsed.ok) parsed.params.client_id;
 * ```
 */
export function parseQuery(query: string, options?: FormParseOptions): FormParseResult {
  return parseForm(query.startsWith('?') ? query.slice(1) : query, options);
}

/**
 * Serialises parameters as `application/x-www-form-urlencoded`, skipping `undefined` values.
 *
 * @example
 * ```ts
 * formEncode({ code: 'abc', state: undefined }); // 'code=abc'
 * ```
 */
export function formEncode(params: Readonly<Record<string, string | undefined>>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) search.append(name, value);
  return search.toString();
}
