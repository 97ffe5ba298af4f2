import {
  allowedHostsFor,
  createHostMatcher,
  isAllowedOrigin,
  isLoopbackHostname,
  loopbackHosts,
} from '@keyhold/core';

/** The hosts and origins an endpoint accepts, derived once from its options. */
export interface HostOriginPolicy {
  /** `undefined` when the request may go on; else why it is refused. */
  refusal(request: Request): string | undefined;
}

/**
 * Default allowlists: the public URL's host (with the loopback names on its port when it is a loopback
 * URL), and the matching origins.
 */
export function createHostOriginPolicy(
  publicUrl: URL,
  allowedHosts: readonly string[] | 'any' | undefined,
  allowedOrigins: readonly string[] | undefined,
): HostOriginPolicy {
  const port = publicUrl.port === '' ? (publicUrl.protocol === 'https:' ? 443 : 80) : Number(publicUrl.port);
  const loopback = isLoopbackHostname(publicUrl.hostname);
  const hosts = allowedHosts ?? [...allowedHostsFor(publicUrl), ...(loopback ? loopbackHosts(port) : [])];
  const origins = allowedOrigins ?? [
    publicUrl.origin,
    ...(loopback ? loopbackHosts(port).map((host) => `${publicUrl.protocol}//${host}`) : []),
  ];
  const hostAllowed = hosts === 'any' ? () => true : createHostMatcher(hosts);
  return {
    refusal(request) {
      const host = request.headers.get('host') ?? undefined;
      // A repeated Host header arrives joined with a comma: never one host.
      if (host === undefined || host.includes(',') || !hostAllowed(host)) return 'Invalid Host header';
      const origin = request.headers.get('origin');
      // No Origin: not a browser (or a same-origin GET). A present one, `null` included, must be listed.
      if (origin !== null && !isAllowedOrigin(origin, origins)) return 'Invalid Origin header';
      return undefined;
    },
  };
}
