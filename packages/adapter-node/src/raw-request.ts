import type { IncomingMessage } from 'node:http';
import type { FetchRequestInfo, RawRequest } from '@keyhold/core';
import { PayloadTooLargeError } from '@keyhold/core';
import { BodyAlreadyConsumedError, BodyTimeoutError } from './errors.js';
import { type PreParsedBody, preParsedBody } from './pre-parsed-body.js';

/** A {@link RawRequest} made from a Node request, and whether its body was left on the wire. */
export interface NodeRawRequest {
  readonly request: RawRequest;
  /** Whether the request declared a body that was not read (the connection then closes after the answer). */
  readonly bodyLeftUnread: () => boolean;
  /** Whether reading the body began (a body begun and left cannot be discarded by Node afterwards). */
  readonly bodyStarted: () => boolean;
  /** Stops the body timer (the response is done). */
  readonly dispose: () => void;
}

function declaresBody(request: IncomingMessage): boolean {
  const { headers } = request;
  return (
    headers['transfer-encoding'] !== undefined ||
    (headers['content-length'] !== undefined && headers['content-length'] !== '0')
  );
}

/**
 * A Node request as a raw handler takes it (`RAW_HANDLER` of `@keyhold/core`): lower-cased headers, repeated
 * ones joined with `, `, and the body read from the socket only when the handler asks, up to its limit and
 * within `bodyTimeoutMs` of the request's arrival ({@link BodyTimeoutError}); a body a framework parsed
 * already (`express.json()`, `express.urlencoded()`) is used re-encoded. No web object is built.
 */
export function toRawRequest(
  request: IncomingMessage,
  target: { readonly url: string; readonly path: string; readonly query: string },
  info: FetchRequestInfo,
  bodyTimeoutMs: number,
): NodeRawRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    // HTTP/2 pseudo-headers (Node's compatibility API) are not header fields.
    if (value === undefined || name.startsWith(':')) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  let pre: PreParsedBody | undefined;
  if (request.readableEnded) {
    pre = preParsedBody(request);
    if (pre === undefined && declaresBody(request)) throw new BodyAlreadyConsumedError('req.body is not set');
  }
  const withBody = pre === undefined && !request.readableEnded && declaresBody(request);
  let read = false;
  let started = false;
  let finished = !withBody;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const readBody = (limitBytes: number): Promise<string> => {
    if (read) return Promise.reject(new Error('the body was read already'));
    read = true;
    if (pre !== undefined) {
      return Buffer.byteLength(pre.text) > limitBytes
        ? Promise.reject(new PayloadTooLargeError(limitBytes))
        : Promise.resolve(pre.text);
    }
    if (!withBody) return Promise.resolve('');
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > limitBytes) {
      return Promise.reject(new PayloadTooLargeError(limitBytes));
    }
    started = true;
    return new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = (error: Error | undefined): void => {
        clearTimeout(timer);
        timer = undefined;
        request.off('data', onData);
        request.off('end', onEnd);
        request.off('error', onError);
        request.off('close', onClose);
        if (error === undefined) {
          finished = true;
          resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8'));
        } else {
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
      const onClose = (): void =>
        finish(new Error('the client closed the connection before the body was complete'));
      timer = setTimeout(() => finish(new BodyTimeoutError(bodyTimeoutMs)), bodyTimeoutMs);
      request.on('data', onData);
      request.once('end', onEnd);
      request.once('error', onError);
      request.once('close', onClose);
    });
  };
  return {
    request: {
      method: (request.method ?? 'GET').toUpperCase(),
      url: target.url,
      path: target.path,
      query: target.query,
      headers,
      readBody,
      info: pre?.parsed === undefined ? info : { ...info, parsedBody: pre.parsed },
    },
    bodyLeftUnread: () => !finished,
    bodyStarted: () => started,
    dispose: () => {
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}
