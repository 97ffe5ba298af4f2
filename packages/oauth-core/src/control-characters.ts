/**
 * Whether any string of a parsed JSON value, member names included, holds a C0 control character or DEL.
 * No client metadata field admits one (names, URIs, contacts, key material), and PostgreSQL refuses NUL in
 * text, so one let through would reach a store as a 500 rather than a 400. Walks with an explicit stack:
 * a deeply nested body must not overflow the call stack.
 *
 * @example
 * ```ts
 * hasControlCharacter(JSON.parse('{"client_name":"a\\u0000b"}')); // true
 * ```
 */
export function hasControlCharacter(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'string') {
      if (isControlText(next)) return true;
    } else if (Array.isArray(next)) {
      pending.push(...next);
    } else if (typeof next === 'object' && next !== null) {
      for (const [name, member] of Object.entries(next)) {
        if (isControlText(name)) return true;
        pending.push(member);
      }
    }
  }
  return false;
}

function isControlText(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}
