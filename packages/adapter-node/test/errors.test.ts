import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { PayloadTooLargeError } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import { BodyAlreadyConsumedError, BodyTimeoutError, NodeAdapterError } from '../src/errors.js';
import { readRequest } from '../src/request.js';

function incoming(headers: Record<string, string>): IncomingMessage {
  const stream = new PassThrough();
  return Object.assign(stream, {
    method: 'POST',
    url: '/token',
    headers,
    socket: { remoteAddress: '127.0.0.1' },
  }) as unknown as IncomingMessage;
}

describe('a body over the limit is @keyhold/core’s PayloadTooLargeError, as in every runtime', () => {
  it('carries ERR_PAYLOAD_TOO_LARGE and the limit', async () => {
    const error = await readRequest(incoming({ 'content-length': '2048' }), { bodyLimitBytes: 1024 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PayloadTooLargeError);
    expect(error).toMatchObject({ code: 'ERR_PAYLOAD_TOO_LARGE', limitBytes: 1024 });
  });
});

describe('the other body failures are NodeAdapterErrors with a code', () => {
  it('a body not received in time is a BodyTimeoutError with ERR_BODY_TIMEOUT', async () => {
    const error = await readRequest(incoming({ 'content-length': '10' }), { bodyTimeoutMs: 10 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(BodyTimeoutError);
    expect(error).toBeInstanceOf(NodeAdapterError);
    expect(error).toMatchObject({ code: 'ERR_BODY_TIMEOUT', timeoutMs: 10, name: 'BodyTimeoutError' });
  });

  it('a body another middleware consumed is a BodyAlreadyConsumedError with ERR_BODY_ALREADY_CONSUMED', async () => {
    const request = incoming({ 'content-length': '10' });
    // A body parser read the stream to its end and left nothing in req.body.
    (request as unknown as PassThrough).end('0123456789');
    request.resume();
    await once(request, 'end');
    const error = await readRequest(request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BodyAlreadyConsumedError);
    expect(error).toBeInstanceOf(NodeAdapterError);
    expect(error).toMatchObject({ code: 'ERR_BODY_ALREADY_CONSUMED', name: 'BodyAlreadyConsumedError' });
  });
});
