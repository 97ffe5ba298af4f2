import type { IncomingMessage } from 'node:http';
import type { HandlerRequest } from '@keyhold/core';
import { PayloadTooLargeError } from '@keyhold/core';
import { clientIp } from './client-ip.js';
import { BodyAlreadyConsumedError, BodyTimeoutError, optionCheck } from './errors.js';
import { preParsedBody } from './pre-parsed-body.js';

/** Options of {@link readRequest}. */
export interface ReadRequestOptions {
  /** Largest body accepted, in bytes (default 1 MiB). */
  bodyLimitBytes?: number;
  /**
   * Time allowed to receive the whole body once the handler starts reading it (default 30 000 ms); a
   * slower sender gets 408 and its connection is closed. Applies on any server (Express, Connect…);
   * {@link serve} adds Node's own header and request timeouts on top.
   */
  bodyTimeoutMs?: number;
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
const DEFAULT_BODY_TIMEOUT_MS = 30_000;

/** {@link ReadRequestOptions} once checked, with the defaults filled in. */
export interface CheckedReadRequestOptions {
  readonly bodyLimitBytes: number;
  readonly bodyTimeoutMs: number;
  readonly trustProxy: NonNullable<ReadRequestOptions['trustProxy']>;
  readonly resolveUserId?: ReadRequestOptions['resolveUserId'];
}

/**
 * Checks {@link ReadRequestOptions} (throwing `NodeAdapterError` `ERR_INVALID_OPTIONS`), so a listener checks
 * them once, when it is created, instead of on every request.
 */
export function checkReadRequestOptions(options: ReadRequestOptions): CheckedReadRequestOptions {
  const trustProxy = options.trustProxy ?? false;
  if (typeof trustProxy !== 'boolean' && typeof trustProxy !== 'function') {
    throw optionCheck.invalid('trustProxy must be a boolean or a function of the address');
  }
  const resolveUserId = options.resolveUserId;
  if (resolveUserId !== undefined && typeof resolveUserId !== 'function') {
    throw optionCheck.invalid('resolveUserId must be a function');
  }
  return {
    bodyLimitBytes: optionCheck.positiveInteger(
      'bodyLimitBytes',
      options.bodyLimitBytes,
      DEFAULT_BODY_LIMIT_BYTES,
    ),
    bodyTimeoutMs: optionCheck.positiveInteger(
      'bodyTimeoutMs',
      options.bodyTimeoutMs,
      DEFAULT_BODY_TIMEOUT_MS,
    ),
    trustProxy,
    ...(resolveUserId === undefined ? {} : { resolveUserId }),
  };
}

function readBody(request: IncomingMessage, limitBytes: number, timeoutMs: number): Promise<string> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) {
    return Promise.reject(new PayloadTooLargeError(limitBytes));
  }
  if (request.readableEnded) {
    let body: string | undefined;
    try {
      body = preParsedBody(request)?.text;
    } catch (error) {
      return Promise.reject(error);
    }
    if (body !== undefined) {
      return Buffer.byteLength(body) > limitBytes
        ? Promise.reject(new PayloadTooLargeError(limitBytes))
        : Promise.resolve(body);
    }
    // A GET, or a body that was empty: nothing was lost. A declared body that is gone was consumed.
    if (Number.isFinite(declared) && declared > 0) {
      return Promise.reject(new BodyAlreadyConsumedError('req.body is not set'));
    }
    return Promise.resolve('');
  }
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (error: Error | undefined): void => {
      clearTimeout(timer);
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
      request.off('close', onClose);
      if (error === undefined) {
        resolve(Buffer.concat(chunks).toString('utf8'));
      } else {
        // Stop reading; the answer carries `Connection: close`, which ends the connection after it.
        request.pause();
        reject(error);
      }
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limitBytes) finish(new PayloadTooLargeError(limitBytes));
      else chunks.push(chunk);
    };
    const onEnd = (): void => finish(undefined);
    const onError = (error: Error): void => finish(error);
    const onClose = (): void => finish(new Error('request aborted before its body was complete'));
    const timer = setTimeout(() => finish(new BodyTimeoutError(timeoutMs)), timeoutMs);
    request.on('data', onData);
    request.once('end', onEnd);
    request.once('error', onError);
    request.once('close', onClose);
  });
}

/**
 * Turns a `node:http` request into a Keyhold {@link HandlerRequest}: lower-cased headers, the raw query,
 * the raw body read up to the limit (`PayloadTooLargeError` of `@keyhold/core` past it) and within the body timeout
 * ({@link BodyTimeoutError}), the client address and the host's user id. A bad option rejects with
 * `NodeAdapterError` `ERR_INVALID_OPTIONS`.
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
  return readCheckedRequest(request, checkReadRequestOptions(options));
}

/** {@link readRequest} with options checked beforehand (by a listener, at its creation). */
export async function readCheckedRequest(
  request: IncomingMessage,
  options: CheckedReadRequestOptions,
): Promise<HandlerRequest> {
  const url = request.url ?? '/';
  const q = url.indexOf('?');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  const body = await readBody(request, options.bodyLimitBytes, options.bodyTimeoutMs);
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
