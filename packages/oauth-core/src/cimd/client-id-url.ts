/**
 * Whether a `client_id` names a Client ID Metadata Document rather than a registered client: it has a URL
 * scheme (`https://…`, or an `http://…` that resolution then refuses with `not_https`). Registered client ids are
 * opaque strings without `://`.
 *
 * @example
 * ```ts
 * isMetadataDocumentClientId('https://app.example/oauth/client.json'); // true
 * isMetadataDocumentClientId('c_8Jq2…'); // false
 * ```
 */
export function isMetadataDocumentClientId(clientId: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(clientId);
}

/**
 * Why a client id is not a usable metadata-document URL, or the parsed URL.
 *
 * @example
 * ```ts
 * const check: ClientIdUrlCheck = checkClientIdUrl(clientId);
 * if (check.ok) check.url.host;
 * ```
 */
export type ClientIdUrlCheck =
  | { readonly ok: true; readonly url: URL }
  | { readonly ok: false; readonly description: string };

// Dot segments, also percent-encoded (`%2e`), which a URL parser would silently resolve away.
const dotSegment = /^(?:\.|%2e){1,2}$/i;

/**
 * Checks the URL rules of a metadata-document client id (draft-ietf-oauth-client-id-metadata-document §3):
 * https, a path beyond `/`, no userinfo, no fragment, no dot segments, and written exactly as the WHATWG URL
 * parser serialises it, because the document's `client_id` must equal the URL character for character.
 *
 * @example
 * ```ts
 * checkClientIdUrl('https://app.example/../client.json'); // { ok: false, description: '…dot segments…' }
 * ```
 */
export function checkClientIdUrl(clientId: string): ClientIdUrlCheck {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return { ok: false, description: 'client_id is not a valid URL' };
  }
  if (url.protocol !== 'https:')
    return { ok: false, description: 'a URL client_id must use the https scheme' };
  if (url.username !== '' || url.password !== '') {
    return { ok: false, description: 'a URL client_id must not contain a user name or password' };
  }
  if (clientId.includes('#'))
    return { ok: false, description: 'a URL client_id must not contain a fragment' };
  const rawPath = clientId.slice(url.origin.length).split('?')[0] ?? '';
  if (rawPath.split('/').some((segment) => dotSegment.test(segment))) {
    return { ok: false, description: 'a URL client_id must not contain "." or ".." path segments' };
  }
  if (url.pathname === '/' || url.pathname === '') {
    return { ok: false, description: 'a URL client_id must have a path (for example /oauth/client.json)' };
  }
  if (url.href !== clientId) {
    return { ok: false, description: `a URL client_id must be written in canonical form (${url.href})` };
  }
  return { ok: true, url };
}

/**
 * Whether `hostname` is allowed by a tenant's domain allowlist. An entry matches its exact host and every
 * subdomain of it (`app.example` allows `app.example` and `eu.app.example`, never `evilapp.example`); a leading
 * `*.` or `.` on an entry means the same. The single entry `*` allows every host (the address checks still apply).
 * Comparison ignores case and a trailing dot on entries; an empty list allows nothing.
 *
 * @example
 * ```ts
 * isHostAllowed('eu.app.example', ['app.example']); // true
 * isHostAllowed('evilapp.example', ['app.example']); // false
 * ```
 */
export function isHostAllowed(hostname: string, allowedDomains: readonly string[]): boolean {
  const host = hostname.toLowerCase();
  for (const raw of allowedDomains) {
    const entry = raw
      .trim()
      .toLowerCase()
      .replace(/^\*?\./, '')
      .replace(/\.$/, '');
    if (raw.trim() === '*') return true;
    if (entry === '') continue;
    if (host === entry || host.endsWith(`.${entry}`)) return true;
  }
  return false;
}
