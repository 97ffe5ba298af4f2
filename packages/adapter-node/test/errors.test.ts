import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BodyAlreadyConsumedError, BodyTimeoutError, NodeAdapterError } from '../src/errors.js';
import { streamBody } from '../src/request-body.js';
import { toWebRequest } from '../src/web-request.js';

function incoming(headers: Record<string, string>): IncomingMessage {
  const stream = new PassThrough();
  return Object.assign(stream, {
    method: 'POST',
    url: '/token',
    headers,
    socket: { remoteAddress: '127.0.0.1' },
  }) as unknown as IncomingMessage;
}

describe('the body failures are NodeAdapterErrors with a code', () => {
  it('a body not received in time is a BodyTimeoutError with ERR_BODY_TIMEOUT', async () => {
    const body = streamBody(incoming({ 'content-length': '10' }), 10);
    const error = await new Response(body.stream).text().catch((e: unknown) => e);
    body.dispose();
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
    let error: unknown;
    try {
      toWebRequest(request, 'http://127.0.0.1/token', 1000);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(BodyAlreadyConsumedError);
    expect(error).toBeInstanceOf(NodeAdapterError);
    expect(error).toMatchObject({ code: 'ERR_BODY_ALREADY_CONSUMED', name: 'BodyAlreadyConsumedError' });
  });
});
