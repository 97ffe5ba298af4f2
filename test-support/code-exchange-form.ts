// The authorization-code redemption a public client posts to the token endpoint (RFC 6749 §4.1.3 with the
// PKCE verifier of RFC 7636): the HTTP-level flow tests send it over fetch, a Node server or a runtime, and
// each built the same form by hand.

/** The fields of a public client's code exchange; the caller encodes them for its transport. */
export function publicCodeExchangeForm(
  code: string,
  verifier: string,
  clientId: string,
  redirectUri: string,
): Record<string, string> {
  return {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    redirect_uri: redirectUri,
    client_id: clientId,
  };
}
