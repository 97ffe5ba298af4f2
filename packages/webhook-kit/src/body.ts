import { mediaType, parseForm } from '@keyhold/internal';

/** How a body is read, chosen from its `Content-Type` before any parsing (and before signatures). */
export type BodyKind = 'json' | 'form' | 'empty';

/** Keys never handed to a method: the metadata slot, and the names that reach an object's prototype. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const RESERVED_KEY = '_webhook';
// A body may spell a key with escapes (`"\u005f_proto__"`), so any backslash sends it the careful way.
const MAY_HOLD_PROTOTYPE_KEY = /__proto__|constructor|prototype|\\/;

/** The outcome of {@link parseBody}. */
export type BodyParseResult =
  | { readonly ok: true; readonly fields: Record<string, unknown> }
  | { readonly ok: false; readonly message: string };

/**
 * Decides how to read a body: JSON (`application/json` and any `+json` type), a form
 * (`application/x-www-form-urlencoded`), or nothing to read (an empty body, whatever its type).
 * `undefined` means the type is unsupported (415).
 *
 * @example
 * ```ts
 * bodyKind('application/json; charset=utf-8', '{}'); // 'json'
 * bodyKind('text/plain', 'hi'); // undefined
 * ```
 */
export function bodyKind(contentType: string | undefined, body: string): BodyKind | undefined {
  if (body === '') return 'empty';
  const type = mediaType(contentType);
  if (type === 'application/json' || type?.endsWith('+json')) return 'json';
  if (type === 'application/x-www-form-urlencoded') return 'form';
  return undefined;
}

function withoutPrototypeKeys(key: string, value: unknown): unknown {
  return PROTOTYPE_KEYS.has(key) ? undefined : value;
}

/**
 * Reads a body into the method's parameters. A JSON body must be an object; `__proto__`, `constructor`
 * and `prototype` keys are dropped at every depth (so a method that merges the payload cannot be
 * steered into a prototype), and `_webhook` at the top level (the metadata slot is the handler's).
 *
 * @example
 * ```ts
 * parseBody('json', '{"a":1,"__proto__":{"x":1}}'); // { ok: true, fields: { a: 1 } }
 * ```
 */
export function parseBody(kind: BodyKind, body: string): BodyParseResult {
  if (kind === 'empty') return { ok: true, fields: {} };
  if (kind === 'form') {
    const form = parseForm(body, { maxParameters: 1000, allowLineBreaks: true });
    if (!form.ok) return { ok: false, message: `form body: ${form.message}` };
    const fields: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(form.params)) {
      if (!PROTOTYPE_KEYS.has(key) && key !== RESERVED_KEY) fields[key] = value;
    }
    return { ok: true, fields };
  }
  let value: unknown;
  try {
    value = MAY_HOLD_PROTOTYPE_KEY.test(body) ? JSON.parse(body, withoutPrototypeKeys) : JSON.parse(body);
  } catch {
    return { ok: false, message: 'the body is not valid JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, message: 'the body must be a JSON object of parameters' };
  }
  const fields = value as Record<string, unknown>;
  delete fields[RESERVED_KEY];
  return { ok: true, fields };
}
