import * as oauth from 'oauth4webapi';

// What the oauth4webapi flow tests each set up the same way against the loopback host: plain http allowed,
// discovery, dynamic registration, and the one retry a DPoP nonce challenge asks for.

/** Plain http is allowed on loopback only: the host listens on 127.0.0.1. */
export const insecure: { readonly [oauth.allowInsecureRequests]: true } = {
  [oauth.allowInsecureRequests]: true,
};

/** The tenant's RFC 8414 metadata, found by oauth4webapi from its issuer (path insertion). */
export async function discover(issuer: string): Promise<oauth.AuthorizationServer> {
  const url = new URL(issuer);
  return oauth.processDiscoveryResponse(
    url,
    await oauth.discoveryRequest(url, { algorithm: 'oauth2', ...insecure }),
  );
}

/** Registers a client through RFC 7591 dynamic registration as oauth4webapi sends it. */
export async function register(
  as: oauth.AuthorizationServer,
  metadata: Partial<oauth.OmitSymbolProperties<oauth.Client>>,
): Promise<oauth.OmitSymbolProperties<oauth.Client>> {
  return oauth.processDynamicClientRegistrationResponse(
    await oauth.dynamicClientRegistrationRequest(as, metadata, insecure),
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
