import type { JWTPayload } from 'jose';

/**
 * Which workloads of a trusted issuer a policy admits: its `sub` exactly, its `sub` against a glob, or a map
 * of claim paths to exact values (compound identities: a namespace and a service account).
 */
export type SubjectMatcher =
  | { readonly kind: 'exact'; readonly value: string }
  | { readonly kind: 'glob'; readonly parts: readonly string[] }
  | { readonly kind: 'claims'; readonly claims: readonly (readonly [string, string])[] };

// Bounds what an administrator can make the matcher do per request.
const MAX_PATTERN_LENGTH = 1024;
const MAX_CLAIMS = 32;

/**
 * Whether `value` matches a glob split at its `*`s: the first part a prefix, the last a suffix, the middle
 * ones in order between them, each found at its leftmost place (greedy leftmost is exact for `*`-only
 * globs). Linear scans, no regular expression: a pattern with many stars cannot make a request slow.
 */
function globMatches(parts: readonly string[], value: string): boolean {
  const first = parts[0] as string;
  const last = parts[parts.length - 1] as string;
  if (value.length < first.length + last.length) return false;
  if (!value.startsWith(first) || !value.endsWith(last)) return false;
  let at = first.length;
  const end = value.length - last.length;
  for (const part of parts.slice(1, -1)) {
    const found = value.indexOf(part, at);
    if (found === -1 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}

/** The matcher a policy's `subject` option describes, or `undefined` when it describes none. */
export function parseSubjectMatcher(value: unknown): SubjectMatcher | undefined {
  if (typeof value === 'string') {
    if (value === '' || value.length > MAX_PATTERN_LENGTH) return undefined;
    return value.includes('*') ? { kind: 'glob', parts: value.split('*') } : { kind: 'exact', value };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const claims = Object.entries(value as Record<string, unknown>);
  if (claims.length === 0 || claims.length > MAX_CLAIMS) return undefined;
  if (!claims.every(([path, expected]) => path !== '' && typeof expected === 'string')) return undefined;
  return { kind: 'claims', claims: claims as [string, string][] };
}

/**
 * The value at a claim path: a literal key first (Kubernetes puts `kubernetes.io` in one key), else the
 * path's dot-separated segments descending into objects, each segment itself tried whole-key-first.
 */
function claimAt(payload: Record<string, unknown>, path: string): unknown {
  if (Object.hasOwn(payload, path)) return payload[path];
  const dot = path.indexOf('.');
  for (let at = dot; at !== -1; at = path.indexOf('.', at + 1)) {
    const head = path.slice(0, at);
    const next = Object.hasOwn(payload, head) ? payload[head] : undefined;
    if (typeof next === 'object' && next !== null && !Array.isArray(next)) {
      const found = claimAt(next as Record<string, unknown>, path.slice(at + 1));
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** Whether a verified workload JWT is one the matcher admits. */
export function subjectMatches(matcher: SubjectMatcher, payload: JWTPayload): boolean {
  const sub = payload.sub;
  switch (matcher.kind) {
    case 'exact':
      return sub === matcher.value;
    case 'glob':
      return typeof sub === 'string' && globMatches(matcher.parts, sub);
    case 'claims':
      return matcher.claims.every(([path, expected]) => claimAt(payload, path) === expected);
  }
}
