import type { IncomingMessage } from 'node:http';
import { BodyTimeoutError } from './errors.js';

/** A request body streamed from the socket as the area reads it. */
export interface StreamedBody {
  readonly stream: ReadableStream<Uint8Array>;
  /** Whether the area started reading the body. */
  readonly started: () => boolean;
  /** Whether the whole body was received. */
  readonly finished: () => boolean;
  /** Whether `bodyTimeoutMs` passed before the whole body was received. */
  readonly timedOut: () => boolean;
  /** Stops the timer and the listeners (the response is done). */
  readonly dispose: () => void;
}

/**
 * The body of `request` as a web stream read only on demand: nothing is taken from the socket until the
 * area reads, and one chunk per read (back-pressure), so an area that refuses on headers alone never makes
 * the server buffer a body. A body not received within `timeoutMs` of the request errors the stream with
 * {@link BodyTimeoutError}; a client that goes away mid-body errors it too.
 */
export function streamBody(request: IncomingMessage, timeoutMs: number): StreamedBody {
  let started = false;
  let finished = false;
  let timedOut = false;
  let settled = false;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const onData = (chunk: Buffer): void => {
    controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    // One chunk per read: the next `pull` resumes the socket.
    request.pause();
  };
  const onEnd = (): void => {
    finished = true;
    settle();
    controller.close();
  };
  const onError = (error: Error): void => fail(error);
  const onClose = (): void => {
    if (!finished) fail(new Error('the client closed the connection before the body was complete'));
  };
  const detach = (): void => {
    request.off('data', onData);
    request.off('end', onEnd);
    request.off('error', onError);
    request.off('close', onClose);
  };
  const settle = (): void => {
    settled = true;
    clearTimeout(timer);
    detach();
  };
  const fail = (error: Error): void => {
    if (settled) return;
    settle();
    request.pause();
    controller.error(error);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    fail(new BodyTimeoutError(timeoutMs));
  }, timeoutMs);
  const stream = new ReadableStream<Uint8Array>(
    {
      start(streamController) {
        controller = streamController;
      },
      pull() {
        if (settled) return;
        if (!started) {
          started = true;
          request.on('data', onData);
          request.once('end', onEnd);
          request.once('error', onError);
          request.once('close', onClose);
        }
        request.resume();
      },
      cancel() {
        if (!settled) settle();
        request.pause();
      },
    },
    // Nothing is read ahead of the area: `pull` runs only when it asks for a chunk.
    { highWaterMark: 0 },
  );
  return {
    stream,
    started: () => started,
    finished: () => finished,
    timedOut: () => timedOut,
    dispose: () => {
      if (!settled) settle();
    },
  };
}
