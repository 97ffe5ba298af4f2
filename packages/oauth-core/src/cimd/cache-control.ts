/**
 * How long a response may be reused according to its `Cache-Control` header, before clamping:
 * `no-store`/`no-cache` → 0, `max-age=N` → N, nothing usable → `undefined` (the caller's default applies).
 *
 * @example
 * ```ts
 * cacheLifetimeSeconds('public, max-age=3600'); // 3600
 * ```
 */
export function cacheLifetimeSeconds(header: string | null): number | undefined {
  if (header === null) return undefined;
  let maxAge: number | undefined;
  for (const part of header.split(',')) {
    const [rawName, rawValue] = part.split('=', 2);
    const name = rawName?.trim().toLowerCase();
    if (name === 'no-store' || name === 'no-cache') return 0;
    if (name === 'max-age' && rawValue !== undefined) {
      const value = rawValue.trim().replace(/^"|"$/g, '');
      if (/^\d+$/.test(value)) maxAge = Number(value);
    }
  }
  return maxAge;
}
