/**
 * The canonical form of a scope set: trimmed, without empty entries or duplicates, sorted by code point.
 * Grants are keyed on this form, so `['b', 'a']` and `['a', 'b', 'a']` name the same grant.
 *
 * @example
 * ```ts
 * canonicalScopes(['user:email', 'read:user', 'user:email']); // ['read:user', 'user:email']
 * ```
 */
export function canonicalScopes(scopes: readonly string[]): string[] {
  const unique = new Set<string>();
  for (const scope of scopes) {
    const trimmed = scope.trim();
    if (trimmed !== '') unique.add(trimmed);
  }
  return [...unique].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Splits a provider's `scope` value; GitHub-style providers separate with commas, RFC 6749 with spaces. */
export function parseScopeString(value: string): string[] {
  return canonicalScopes(value.split(/[\s,]+/));
}
