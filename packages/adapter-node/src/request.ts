import type { IncomingMessage } from 'node:http';
import type { HandlerRequest } from '@keyhold/core';

/** Thrown by {@link readRequest} when the body is larger than the limit; the listener answers 413. */
export class BodyTooLargeError extends Error {
  readonly code = 'ERR_BODY_TOO_LARGE' as const;
  constructor(readonly limitBytes: number) {
    super(`request body exceeds ${limitBytes} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/** Options of {@link readRequest}. */
export interface ReadRequestOptions {
  /** Largest body accepted, in bytes (default 1 MiB). */
  bodyLimitBytes?: number;
  /**
   * Whether to believe `X-Forwarded-For`. `false` (default) uses the socket address. `true` trusts every
   * hop; a function trusts the hops for which it returns true (for example your load balancer's range),
   * and the client is the first untrusted address from the right.
   */
  trustProxy?: boolean | ((address: string) => boolean);
  /** The user id of the host's session for this request, if any. */
  resolveUserId?: (request: IncomingMessage) => string | undefined | Promise<string | undefined>;
}

const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

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
export function clientIp(
  request: IncomingMessage,
  trustProxy: ReadRequestOptions['trustProxy'] = false,
): string | undefined {
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
    candidate = hops[i]!;
    if (!trusts(candidate)) return candidate;
  }
  return candidate;
}

async function readBody(request: IncomingMessage, limitBytes: number): Promise<string> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) throw new BodyTooLargeError(limitBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limitBytes) throw new BodyTooLargeError(limitBytes);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Turns a `node:http` request into a Keyhold {@link HandlerRequest}: lower-cased headers, the raw query,
 * the raw body read up to the limit ({@link BodyTooLargeError} past it), the client address and the
 * host's user id.
 *
 * @example
 * ```ts
 * const input = await readRequest(req, { bodyLimitBytes: 64 * 1024 });
 * ```
 */
export async function readRequest(
  request: IncomingMessage,
  options: ReadRequestOptions = {},
): Promise<HandlerRequest> {
  const url = request.url ?? '/';
  const q = url.indexOf('?');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  const body = await readBody(request, options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES);
  const userId = options.resolveUserId ? await options.resolveUserId(request) : undefined;
  const ip = clientIp(request, options.trustProxy);
  return {
    method: (request.method ?? 'GET').toUpperCase(),
    path: q === -1 ? url : url.slice(0, q),
    query: q === -1 ? '' : url.slice(q + 1),
    headers,
    body,
    ...(userId !== undefined ? { userId } : {}),
    ...(ip !== undefined ? { ip } : {}),
  };
}
