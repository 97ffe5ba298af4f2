// Bounded reads of answers from remote peers (metadata documents, key sets, provider token endpoints,
// identity providers, the registry): a byte cap and a deadline, both holding against a peer that sends
// forever, sends a huge answer, or trickles, and against a fetch or body stream that ignores its signal.
// For Keyhold's own packages; a host does not need it.

/**
 * The outcome of {@link readCapped}: the whole body, or how many bytes had arrived when it went over the cap.
 */
export type BodyRead =
  | { readonly ok: true; readonly bytes: Uint8Array<ArrayBuffer> }
  | { readonly ok: false; readonly bytesSeen: number };

/**
 * `work`, or a rejection with `signal.reason` as soon as `signal` aborts: the time limit holds even against a
 * fetch (or a body stream) that ignores its abort signal.
 *
 * @example
 * ```ts
 * const signal = AbortSignal.timeout(5000);
 * const response = await raceAbort(fetch(url, { signal }), signal);
 * ```
 */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * Releases the body of a response that will not be read. Not awaited: some bodies never acknowledge a cancel.
 *
 * @example
 * ```ts
 * if (response.status !== 200) { discard(response); return failed(); }
 * ```
 */
export function discard(response: Response): void {
  if (response.body !== null && !response.body.locked) response.body.cancel().catch(() => {});
}

/**
 * Reads at most `maxBytes` of the body and cancels the stream as soon as it goes over, so a huge or endless
 * body costs no more than the cap; rejects with `signal.reason` when `signal` aborts first (one deadline for
 * the whole body, not per chunk, so a trickling peer is cut too), and cancels the stream then as well. A
 * `Content-Length` over the cap is refused before a byte is read.
 *
 * @example
 * ```ts
 * const signal = AbortSignal.timeout(5000);
 * const response = await raceAbort(fetch(url, { signal }), signal);
 * const body = await readCapped(response, 64 * 1024, signal);
 * if (!body.ok) throw new Error(`answer over 64 KiB (${body.bytesSeen} bytes seen)`);
 * ```
 */
export async function readCapped(
  response: Response,
  maxBytes: number,
  signal: AbortSignal,
): Promise<BodyRead> {
  const body = response.body;
  if (body === null) return { ok: true, bytes: new Uint8Array(0) };
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isSafeInteger(declared) && declared > maxBytes) {
    discard(response);
    return { ok: false, bytesSeen: 0 };
  }
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await raceAbort(reader.read(), signal);
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        // Not awaited: a peer that never acknowledges the cancel must not hold the resolution.
        reader.cancel().catch(() => {});
        return { ok: false, bytesSeen: total };
      }
      chunks.push(value);
    }
  } catch (error) {
    // The deadline passed (or the stream failed): stop the transfer, whether or not the fetch saw the signal.
    reader.cancel().catch(() => {});
    throw error;
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { ok: true, bytes };
}
