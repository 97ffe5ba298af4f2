import { describe, expect, it } from 'vitest';
import { discard, raceAbort, readCapped } from '../src/index.js';

const encoder = new TextEncoder();

/** A body that sends `chunk` every `intervalMs` until cancelled, and records the cancel. */
function streamingBody(chunk: Uint8Array, intervalMs: number, cancelled: { value: boolean }): ReadableStream {
  let timer: ReturnType<typeof setInterval> | undefined;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      timer = setInterval(() => controller.enqueue(chunk), intervalMs);
    },
    cancel() {
      cancelled.value = true;
      clearInterval(timer);
    },
  });
}

describe('readCapped: a byte cap and one deadline for the whole body', () => {
  it('returns the whole body when it fits', async () => {
    const read = await readCapped(new Response('{"a":1}'), 7, AbortSignal.timeout(1000));
    expect(read).toEqual({ ok: true, bytes: encoder.encode('{"a":1}') });
  });

  it('an endless body: stops just over the cap and cancels the stream', async () => {
    const cancelled = { value: false };
    const body = streamingBody(new Uint8Array(1024), 1, cancelled);
    const read = await readCapped(new Response(body), 10 * 1024, AbortSignal.timeout(5000));
    expect(read.ok).toBe(false);
    expect(read.ok === false && read.bytesSeen).toBeLessThanOrEqual(11 * 1024);
    expect(cancelled.value).toBe(true);
  });

  it('a declared Content-Length over the cap is refused before a byte is read', async () => {
    const response = new Response('x'.repeat(100), { headers: { 'content-length': '100' } });
    expect(await readCapped(response, 10, AbortSignal.timeout(1000))).toEqual({ ok: false, bytesSeen: 0 });
  });

  it('a trickling body is cut by the total deadline, not per chunk, and the stream is cancelled', async () => {
    const cancelled = { value: false };
    const body = streamingBody(new Uint8Array(1), 20, cancelled);
    const started = Date.now();
    await expect(readCapped(new Response(body), 1_000_000, AbortSignal.timeout(200))).rejects.toMatchObject({
      name: 'TimeoutError',
    });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(cancelled.value).toBe(true);
  });

  it('the deadline holds against a body stream that never answers a read', async () => {
    const body = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) });
    await expect(readCapped(new Response(body), 100, AbortSignal.timeout(50))).rejects.toMatchObject({
      name: 'TimeoutError',
    });
  });
});

describe('raceAbort and discard', () => {
  it('raceAbort rejects with the reason when the signal aborts first, even if the work never settles', async () => {
    await expect(raceAbort(new Promise(() => {}), AbortSignal.timeout(20))).rejects.toMatchObject({
      name: 'TimeoutError',
    });
    expect(await raceAbort(Promise.resolve(1), new AbortController().signal)).toBe(1);
  });

  it('discard cancels an unread body', async () => {
    const cancelled = { value: false };
    discard(new Response(streamingBody(new Uint8Array(1), 10, cancelled)));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(cancelled.value).toBe(true);
  });
});
