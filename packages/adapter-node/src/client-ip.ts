import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/**
 * Whether to believe `X-Forwarded-For`: `false` uses the socket address, `true` trusts every hop, a function
 * trusts the hops for which it returns true (a load balancer's range, say).
 */
export type TrustProxy = boolean | ((address: string) => boolean);

function normaliseAddress(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

/**
 * The client address: the socket's, or under `trustProxy` the first untrusted hop of `X-Forwarded-For`
 * counted from the right (the only hops that cannot be forged by the client).
 *
 * @example
 * ```ts
 * clientIp(req, (a) => a === '10.0.0.1');
 * ```
 */
export function clientIp(request: IncomingMessage, trustProxy: TrustProxy = false): string | undefined {
  const socketAddress = request.socket.remoteAddress
    ? normaliseAddress(request.socket.remoteAddress)
    : undefined;
  if (!trustProxy || socketAddress === undefined) return socketAddress;
  const trusts = trustProxy === true ? () => true : trustProxy;
  if (!trusts(socketAddress)) return socketAddress;
  const header = request.headers['x-forwarded-for'];
  const hops = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((hop) => normaliseAddress(hop.trim()))
    .filter((hop) => hop !== '');
  let candidate = socketAddress;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!;
    // A hop that is no address was written by the client, not by a proxy: the last trusted hop is the answer,
    // so nobody picks a rate-limit key of its own by sending garbage.
    if (isIP(hop) === 0) return candidate;
    candidate = hop;
    if (!trusts(candidate)) return candidate;
  }
  return candidate;
}
