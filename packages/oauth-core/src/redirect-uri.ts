import type { ApplicationType } from './storage.js';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

function parse(uri: string): URL | undefined {
  try {
    return new URL(uri);
  } catch {
    return undefined;
  }
}

/** Whether a URL is an `http` loopback redirect (RFC 8252 §7.3). */
export function isLoopbackRedirect(url: URL): boolean {
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

/**
 * Whether a presented redirect_uri matches a registered one: exactly (string equality; trailing slashes
 * matter), or, for an `http` loopback registration, equal in everything but the port (RFC 8252 §7.3), since
 * native apps listen on an ephemeral port.
 */
export function redirectUriMatches(presented: string, registered: string): boolean {
  if (presented === registered) return true;
  const a = parse(registered);
  if (!a || !isLoopbackRedirect(a)) return false;
  const b = parse(presented);
  if (!b || !isLoopbackRedirect(b)) return false;
  return (
    a.hostname === b.hostname &&
    a.pathname === b.pathname &&
    a.search === b.search &&
    b.hash === '' &&
    b.username === '' &&
    b.password === ''
  );
}

const FORBIDDEN_SCHEMES = new Set([
  'javascript:',
  'data:',
  'file:',
  'vbscript:',
  'blob:',
  'about:',
  'ftp:',
  'ws:',
  'wss:',
]);

/**
 * Why a redirect URI may not be registered, or `undefined` when it may: it must be absolute and without a
 * fragment; `https`, `http` on a loopback host, or a private-use scheme containing a dot (RFC 8252 §7.1).
 * A client that states `application_type: "native"` may also use a private-use scheme without a dot
 * (`cursor://…`, `vscode://…`, as MCP desktop clients do).
 */
export function redirectUriProblem(uri: string, statedApplicationType?: ApplicationType): string | undefined {
  if (uri.length > 2048) return 'is longer than 2048 characters';
  const url = parse(uri);
  if (!url) return 'is not an absolute URI';
  if (url.hash !== '' || uri.includes('#')) return 'must not contain a fragment';
  if (url.username !== '' || url.password !== '') return 'must not contain user information';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:')
    return isLoopbackRedirect(url) ? undefined : 'uses http on a non-loopback host';
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return `uses the forbidden scheme ${url.protocol}`;
  if (!url.protocol.slice(0, -1).includes('.') && statedApplicationType !== 'native')
    return 'uses a private-use scheme without a dot (RFC 8252 §7.1; allowed when application_type is "native")';
  return undefined;
}

/**
 * Whether a redirect URI is one only a native app uses (RFC 8252): `http` on a loopback host, or a
 * private-use scheme (anything but http and https).
 *
 * @example
 * ```ts
 * isNativeRedirectUri('cursor://anysphere.cursor-mcp/oauth/callback'); // true
 * ```
 */
export function isNativeRedirectUri(uri: string): boolean {
  const url = parse(uri);
  if (!url) return false;
  return isLoopbackRedirect(url) || (url.protocol !== 'https:' && url.protocol !== 'http:');
}

/**
 * The `application_type` of a client that did not state one: `native` when any redirect URI is a loopback
 * or private-use one (a `web` client could not register it), `web` otherwise (the OIDC default).
 *
 * @example
 * ```ts
 * inferApplicationType(['http://127.0.0.1/callback']); // 'native'
 * ```
 */
export function inferApplicationType(redirectUris: readonly string[]): ApplicationType {
  return redirectUris.some(isNativeRedirectUri) ? 'native' : 'web';
}

/**
 * Why a redirect URI does not suit the client's `application_type`, or `undefined`: a `web` client
 * redirects to `https` only; a `native` client may use `https` (claimed URLs, RFC 8252 §7.2), loopback `http`
 * and private-use schemes. Check {@link redirectUriProblem} too.
 *
 * @example
 * ```ts
 * applicationTypeProblem('cursor://cb', 'web'); // 'must use https for a web client (application_type "web")'
 * ```
 */
export function applicationTypeProblem(uri: string, applicationType: ApplicationType): string | undefined {
  if (applicationType === 'web' && isNativeRedirectUri(uri)) {
    return 'must use https for a web client (application_type "web")';
  }
  return undefined;
}

/** Appends response parameters to a redirect URI, keeping its own query. */
export function withQuery(uri: string, params: Readonly<Record<string, string | undefined>>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params))
    if (value !== undefined) url.searchParams.append(name, value);
  return url.toString();
}
