import type { ServerResponse } from 'node:http';

/** Writes `chunk`; resolves when Node can take more (or the response went away). */
function write(response: ServerResponse, chunk: Uint8Array): Promise<void> | undefined {
  if (response.write(chunk)) return undefined;
  return new Promise((resolve) => {
    const done = (): void => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.once('drain', done);
    response.once('close', done);
  });
}

/**
 * Writes a web `Response` to a Node response, once: status, every header (each `Set-Cookie` separately), and
 * the body. A body that is one chunk (every JSON or HTML answer an area makes) is written in one go with its
 * `Content-Length`; anything longer, and every event stream from its first byte (an SSE answer's headers
 * go out at once), is streamed with back-pressure: a slow reader slows the producer. `closeConnection` adds
 * `Connection: close` (the request's body was left unread). A header Node refuses throws before anything is
 * sent; a client that goes away mid-stream cancels the body.
 */
export async function writeAnswer(
  response: ServerResponse,
  answer: Response,
  closeConnection: boolean,
): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  answer.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = answer.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  if (closeConnection) headers['connection'] = 'close';
  if (answer.body === null) {
    response.writeHead(answer.status, headers);
    response.end();
    return;
  }
  const reader = answer.body.getReader();
  let held: Uint8Array | undefined;
  if (!(headers['content-type'] ?? '').toString().startsWith('text/event-stream')) {
    // Reading ahead one chunk costs nothing for a body made from a string, and saves a chunked answer.
    let first: ReadableStreamReadResult<Uint8Array>;
    let second: ReadableStreamReadResult<Uint8Array>;
    try {
      first = await reader.read();
      second = first.done ? first : await reader.read();
    } catch (error) {
      // The area's body failed before a byte was sent: the listener answers 500.
      reader.releaseLock();
      throw error;
    }
    if (second.done) {
      const whole = first.done ? undefined : first.value;
      headers['content-length'] = String(whole?.byteLength ?? 0);
      response.writeHead(answer.status, headers);
      response.end(whole);
      return;
    }
    response.writeHead(answer.status, headers);
    await write(response, (first as ReadableStreamReadResult<Uint8Array> & { done: false }).value);
    held = second.value;
  } else {
    response.writeHead(answer.status, headers);
    // Send the status and headers now: a stream may not produce its first chunk for a while.
    response.flushHeaders();
  }
  const cancel = (): void => {
    reader.cancel().catch(() => {});
  };
  response.once('close', cancel);
  try {
    if (held !== undefined) await write(response, held);
    for (;;) {
      if (response.destroyed) return;
      const next = await reader.read();
      if (next.done) break;
      await write(response, next.value);
    }
    response.end();
  } catch {
    // The client went away or the body failed mid-stream: nothing more can be said on this response.
    response.destroy();
  } finally {
    response.off('close', cancel);
  }
}
