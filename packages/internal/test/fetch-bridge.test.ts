import { CoreError, PayloadTooLargeError } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import { readHandlerRequest } from '../src/index.js';

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('a body over the limit is a PayloadTooLargeError: a CoreError with ERR_PAYLOAD_TOO_LARGE and the limit', () => {
  it('when the declared Content-Length is over the limit', async () => {
    const request = new Request('https://as.example/token', {
      method: 'POST',
      headers: { 'content-length': '2048' },
      body: 'x'.repeat(2048),
    });
    const error = await rejection(readHandlerRequest(request, {}, { bodyLimitBytes: 1024 }));
    expect(error).toBeInstanceOf(PayloadTooLargeError);
    expect(error).toBeInstanceOf(CoreError);
    expect(error).toMatchObject({
      code: 'ERR_PAYLOAD_TOO_LARGE',
      limitBytes: 1024,
      name: 'PayloadTooLargeError',
    });
  });

  it('when a streamed body without a length goes over the limit', async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(600));
        controller.enqueue(new Uint8Array(600));
        controller.close();
      },
    });
    const request = new Request('https://as.example/token', {
      method: 'POST',
      body,
      duplex: 'half',
    } as RequestInit);
    const error = await rejection(readHandlerRequest(request, {}, { bodyLimitBytes: 1024 }));
    expect(error).toMatchObject({ code: 'ERR_PAYLOAD_TOO_LARGE', limitBytes: 1024 });
  });

  it('a body at the limit is read', async () => {
    const request = new Request('https://as.example/token', { method: 'POST', body: 'x'.repeat(1024) });
    const read = await readHandlerRequest(request, {}, { bodyLimitBytes: 1024 });
    expect(read.body).toHaveLength(1024);
  });
});
