/**
 * An `htu` (RFC 9449 §4.2) or an endpoint's public URL in the one spelling they are compared in: RFC 3986
 * §6.2.2 syntax-based normalisation (case of scheme and host, percent-encoding case, unreserved characters
 * decoded, dot segments) and §6.2.3 scheme-based normalisation (default port, empty path as `/`), which
 * WHATWG URL parsing gives but for the percent-encoding rules, applied here. `undefined` for anything that is
 * not an absolute http(s) URL, or that carries a query or a fragment (§4.2: `htu` has neither).
 *
 * @example
 * ```ts
 * normalizeHtu('HTTPS://Auth.Example:443/t/%7edemo/token'); // 'https://auth.example/t/~demo/token'
 * normalizeHtu('https://auth.example/token?x=1'); // undefined
 * ```
 */
export function normalizeHtu(value: string): string | undefined {
  if (value.includes('?') || value.includes('#')) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username !== '' || url.password !== '') return undefined;
  const path = url.pathname.replace(/%([0-9A-Fa-f]{2})/g, (_match, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return /[A-Za-z0-9\-._~]/.test(char) ? char : `%${hex.toUpperCase()}`;
  });
  return `${url.protocol}//${url.host}${path}`;
}
