// What the oauth4webapi flows share: plain-HTTP requests to the local host, discovery and the DPoP nonce retry.
import * as oauth from 'oauth4webapi';

/** oauth4webapi refuses plain HTTP unless told: the test host listens on 127.0.0.1 without TLS. */
export const insecure: { readonly [oauth.allowInsecureRequests]: true } = {
  [oauth.allowInsecureRequests]: true,
};

/** RFC 8414 discovery of `issuer` (path insertion: /.well-known/oauth-authorization-server/tenant/demo). */
export async function discover(issuer: string): Promise<oauth.AuthorizationServer> {
  const url = new URL(issuer);
  return oauth.processDiscoveryResponse(
    url,
    await oauth.discoveryRequest(url, { algorithm: 'oauth2', ...insecure }),
  );
}

/** Runs a request once, and again when the server asked for a DPoP nonce (the handle has kept it). */
export async function withNonceRetry<T>(attempt: () => Promise<T>): Promise<{ value: T; retried: boolean }> {
  try {
    return { value: await attempt(), retried: false };
  } catch (error) {
    if (!oauth.isDPoPNonceError(error)) throw error;
    return { value: await attempt(), retried: true };
  }
}
