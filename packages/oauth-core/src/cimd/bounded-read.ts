import { ForbiddenAddressError } from './fetch-contract.js';

// Helpers shared by the fetchers of untrusted documents (metadata documents, client JWK Sets): a time limit
// that holds against fetches that ignore their signal, and a body read with a size cap.

export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

export function forbiddenAddressIn(error: unknown): ForbiddenAddressError | undefined {
  for (
    let current = error, depth = 0;
    current instanceof Error && depth < 5;
    current = current.cause, depth++
  ) {
    if (current instanceof ForbiddenAddressError) return current;
  }
  return undefined;
}

// The timeout holds even against a fetch (or a body stream) that ignores its abort signal.
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

// Releases a body that will not be read. Not awaited: some bodies never acknowledge a cancel.
export function discard(response: Response): void {
  if (response.body !== null && !response.body.locked) response.body.cancel().catch(() => {});
}

export type BodyRead =
  | { readonly ok: true; readonly bytes: Uint8Array }
  | { readonly ok: false; readonly bytesSeen: number };

// Reads at most `maxBytes` and cancels the stream as soon as it goes over, so a huge or endless body costs
// no more than the cap.
export async function readCapped(
  response: Response,
  maxBytes: number,
  signal: AbortSignal,
): Promise<BodyRead> {
  const body = response.body;
  if (body === null) return { ok: true, bytes: new Uint8Array(0) };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
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
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { ok: true, bytes };
}
