// The authorization-code request URL the HTTP-level tests send a browser to: the host's tests, the
// conformance profiles and the single-user flow each spelled the same RFC 6749 §4.1.1 + RFC 7636 query out.

/**
 * The RFC 7636 appendix B challenge (S256 of `dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk`), for requests whose
 * code is never redeemed.
 */
export const EXAMPLE_CODE_CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

/**
 * `authorizationEndpoint` with a code request for `clientId` back to `redirectUri`: response_type=code and an
 * S256 challenge ({@link EXAMPLE_CODE_CHALLENGE} unless `params` names one); `params` adds to or overrides it.
 */
export function codeRequestUrl(
  authorizationEndpoint: string | URL,
  clientId: string,
  redirectUri: string,
  params: Record<string, string> = {},
): URL {
  const url = new URL(authorizationEndpoint);
  url.search = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: redirectUri,
    code_challenge: EXAMPLE_CODE_CHALLENGE,
    code_challenge_method: 'S256',
    ...params,
  }).toString();
  return url;
}
