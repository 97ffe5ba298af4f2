/** The most a document or response body may hold before the doctor stops reading it. */
export const MAX_BODY_BYTES: number = 256 * 1024;
/** How long one request may take, headers and body together. */
export const REQUEST_TIMEOUT_MS: number = 5_000;

/** What the doctor keeps of one HTTP exchange. */
export interface Fetched {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
}

/** Why a request produced no answer the doctor can read. */
export class FetchRefusedError extends Error {
  override readonly name = 'FetchRefusedError';
}

const LOOPBACK = /^(?:127\.\d+\.\d+\.\d+|\[::1\]|localhost)$/;

/** Whether a URL names this machine: the only place plain http is accepted. */
export function isLoopback(url: URL): boolean {
  return LOOPBACK.test(url.hostname);
}

/**
 * One request, bounded in bytes ({@link MAX_BODY_BYTES}) and time ({@link REQUEST_TIMEOUT_MS}), https
 * only unless the host is a loopback address, redirects not followed (a metadata document that moves is
 * itself a finding).
 */
export async function boundedFetch(
  fetchImpl: typeof fetch,
  url: string,
  init: RequestInit = {},
): Promise<Fetched> {
  const target = new URL(url);
  if (target.protocol !== 'https:' && !(target.protocol === 'http:' && isLoopback(target))) {
    throw new FetchRefusedError(`${url} is not https (plain http is used only for loopback addresses)`);
  }
  const signal = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  let response: Response;
  try {
    response = await fetchImpl(target, { ...init, redirect: 'manual', signal });
  } catch (error) {
    throw new FetchRefusedError(`${url} did not answer: ${reason(error)}`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  try {
    while (reader !== undefined) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_BODY_BYTES) {
        await reader.cancel();
        throw new FetchRefusedError(`${url} answered more than ${MAX_BODY_BYTES} bytes`);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof FetchRefusedError) throw error;
    throw new FetchRefusedError(`${url} did not finish its answer: ${reason(error)}`);
  }
  return { status: response.status, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') };
}

function reason(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError')
    return `no answer within ${REQUEST_TIMEOUT_MS} ms`;
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return error instanceof Error ? `${error.message}${cause}` : String(error);
}

/** The body as a JSON object, or undefined when it is not one. */
export function jsonObject(fetched: Fetched): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(fetched.body);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
