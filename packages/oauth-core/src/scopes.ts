// RFC 6749 §3.3 scope-token: printable ASCII except space, double quote and backslash.
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/**
 * The scopes of a stored or granted scope string (space-separated, as records keep it): `[]` for an absent or
 * empty one, never an empty token, whatever the spacing. Every reader of a record's `scope` goes through here.
 */
export function scopeList(scope: string | undefined): string[] {
  if (scope === undefined) return [];
  return scope.split(' ').filter((token) => token !== '');
}

/** Splits a scope string into its tokens, or `undefined` when a token is malformed. Duplicates collapse. */
export function parseScope(scope: string | undefined): string[] | undefined {
  const tokens = scopeList(scope);
  if (!tokens.every((token) => SCOPE_TOKEN.test(token))) return undefined;
  return [...new Set(tokens)];
}

/** A scope set in its canonical form: sorted, space-separated. */
export function formatScope(scopes: Iterable<string>): string {
  return [...new Set(scopes)].sort().join(' ');
}

/** Whether every scope of `requested` is in `allowed`. */
export function isWithin(requested: readonly string[], allowed: readonly string[]): boolean {
  const set = new Set(allowed);
  return requested.every((scope) => set.has(scope));
}

/**
 * The scopes a client may be granted from a `scope` parameter: well formed (`invalid_scope` otherwise),
 * offered by the tenant when it lists its scopes, and within the client's registered scope when it has
 * one. An absent parameter means the client's registered scope, or else the pre-defined default of
 * RFC 6749 §3.3 (`defaultScopes`, those of them the tenant offers; none when not given).
 */
export function requestedScopes(
  scope: string | undefined,
  tenantScopes: readonly string[] | undefined,
  clientScopes: readonly string[] | undefined,
  defaultScopes: readonly string[] = [],
): string[] | { readonly error: string } {
  const parsed = parseScope(scope);
  if (!parsed) return { error: 'scope is malformed' };
  const fallback = defaultScopes.filter((s) => tenantScopes === undefined || tenantScopes.includes(s));
  const requested = scope === undefined ? [...(clientScopes ?? fallback)] : parsed;
  if (tenantScopes && !isWithin(requested, tenantScopes))
    return { error: 'a requested scope is not offered here' };
  if (clientScopes && !isWithin(requested, clientScopes)) {
    return { error: 'a requested scope is outside the scope the client registered' };
  }
  return requested;
}
