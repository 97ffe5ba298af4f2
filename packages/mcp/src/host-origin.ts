import {
  allowedHostsFor,
  createHostMatcher,
  isAllowedOrigin,
  isLoopbackHostname,
  loopbackHosts,
} from '@keyhold/internal';

/**
 * Why a request is refused: 421 for a `Host` that is no single host name (missing, malformed, or a
 * repeated header joined with a comma), as every other path of a guarded server answers; 403 for a
 * well-formed foreign `Host` or a foreign `Origin`, as MCP clients and the transport guidance expect.
 */
export interface HostOriginRefusal {
  readonly status: 403 | 421;
  readonly reason: string;
}

/** The hosts and origins an endpoint accepts, derived once from its options. */
export interface HostOriginPolicy {
  /** `undefined` when the request may go on; else why it is refused. */
  refusal(request: Request): HostOriginRefusal | undefined;
  /** Whether a browser page on this origin may call the endpoint (and read its answers: CORS). */
  allowsOrigin(origin: string): boolean;
}

/**
 * Whether a `Host` value is one well-formed host name (`host` or `host:port`). It is when it matches
 * itself: the matcher drops an allowed entry it cannot parse, so a malformed value (spaces, user
 * information, a list, empty labels) matches nothing.
 */
export function isWellFormedHost(host: string | undefined): host is string {
  return host !== undefined && host !== '' && createHostMatcher([host])(host);
}

/** The message of a refusal as the JSON-RPC error says it. */
export function refusalMessage(refusal: HostOriginRefusal): string {
  return refusal.status === 421 ? `Misdirected Request: ${refusal.reason}` : `Forbidden: ${refusal.reason}`;
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
    allowsOrigin: (origin) => isAllowedOrigin(origin, origins),
    refusal(request) {
      const host = request.headers.get('host') ?? undefined;
      // A repeated Host header arrives joined with a comma: never one host. A value matches itself exactly
      // when it parses as a host name.
      if (!isWellFormedHost(host) || host.includes(',')) {
        return { status: 421, reason: 'the Host header must be one host name' };
      }
      if (!hostAllowed(host)) return { status: 403, reason: 'Invalid Host header' };
      const origin = request.headers.get('origin');
      // No Origin: not a browser (or a same-origin GET). A present one, `null` included, must be listed.
      if (origin !== null && !isAllowedOrigin(origin, origins)) {
        return { status: 403, reason: 'Invalid Origin header' };
      }
      return undefined;
    },
  };
}
