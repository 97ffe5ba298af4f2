import { PayloadTooLargeError } from '@keyhold/core';

const decoder = new TextDecoder();

/**
 * The body of a request to an endpoint as text, read once, at most `limitBytes` (else
 * {@link PayloadTooLargeError}). A declared `Content-Length` within the limit is read whole in one call: the
 * runtime's HTTP parser already holds the body to that length. A body without one is counted as it streams
 * and cut as soon as it goes over.
 */
export async function readRequestBody(request: Request, limitBytes: number): Promise<string> {
  const declaredHeader = request.headers.get('content-length');
  if (declaredHeader !== null) {
    const declared = Number(declaredHeader);
    if (Number.isSafeInteger(declared) && declared >= 0) {
      if (declared > limitBytes) throw new PayloadTooLargeError(limitBytes);
      const text = await request.text();
      // A Request built by hand may carry a header that does not match its body: the cap still holds.
      if (text.length > limitBytes) throw new PayloadTooLargeError(limitBytes);
      return text;
    }
  }
  if (request.body === null) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limitBytes) {
      await reader.cancel().catch(() => {});
      throw new PayloadTooLargeError(limitBytes);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return decoder.decode(chunks[0]);
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return decoder.decode(body);
}
