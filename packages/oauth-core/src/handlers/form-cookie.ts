// The anti-forgery cookie the consent and connected-apps pages share the scheme of (double submit): a random
// value in an HttpOnly cookie, the form's token a hash of it bound to what the form answers.

const COOKIE_VALUE = /^[A-Za-z0-9_-]{32,128}$/;

/**
 * Every well-formed value of the cookie `name` in a `Cookie` header (a browser may send several, for
 * different paths); anything else is ignored, never an error.
 */
export function formCookieValues(header: string | undefined, name: string): string[] {
  if (header === undefined) return [];
  const values: string[] = [];
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    if (COOKIE_VALUE.test(value)) values.push(value);
  }
  return values;
}
