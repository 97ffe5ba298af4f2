/**
 * The request header that carries a claim code on every MCP POST (lower-cased, as Node and the SDK's
 * `requestInfo.headers` present header names).
 *
 * @example
 * ```ts
 * new StreamableHTTPClientTransport(url, { requestInit: { headers: { 'Mcp-Claim-Code': 'ABC-DEF' } } });
 * ```
 */
export const CLAIM_CODE_HEADER: string = 'mcp-claim-code';

/**
 * The query parameter that carries a claim code on the SSE GET stream, for clients that cannot set headers.
 *
 * @example
 * ```ts
 * new EventSource(`${mcpUrl}?claim=ABC-DEF`);
 * ```
 */
export const CLAIM_CODE_QUERY_PARAMETER: string = 'claim';

/**
 * Request headers as Node and the MCP SDK give them: lower-cased names, repeated ones as arrays.
 *
 * @example
 * ```ts
 * const headers: RequestHeaders = req.headers;
 * ```
 */
export type RequestHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * The claim code in the `Mcp-Claim-Code` header, or `undefined` when there is none (an empty header counts
 * as none). A repeated header is passed on joined, so it validates as malformed rather than picking one.
 *
 * @example
 * ```ts
 * const code = claimCodeFromHeaders(extra.requestInfo?.headers);
 * ```
 */
export function claimCodeFromHeaders(headers: RequestHeaders | undefined): string | undefined {
  const value = headers?.[CLAIM_CODE_HEADER];
  const text = typeof value === 'string' ? value : value?.join(', ');
  return text === undefined || text.trim() === '' ? undefined : text;
}

/**
 * The claim code in the `claim` query parameter of a request URL, or `undefined` when there is none.
 *
 * @example
 * ```ts
 * claimCodeFromUrl(new URL('http://127.0.0.1/mcp?claim=ABC-DEF')); // 'ABC-DEF'
 * ```
 */
export function claimCodeFromUrl(url: URL | string | undefined): string | undefined {
  if (url === undefined) return undefined;
  const parsed = typeof url === 'string' ? new URL(url, 'http://localhost') : url;
  const values = parsed.searchParams.getAll(CLAIM_CODE_QUERY_PARAMETER);
  if (values.length === 0) return undefined;
  const text = values.join(', ');
  return text.trim() === '' ? undefined : text;
}
