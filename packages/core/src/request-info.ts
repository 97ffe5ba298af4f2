/**
 * How a host names the user of a request: the id itself, or a function that finds it (reads the session
 * cookie, say). A function is called only by the endpoints that use a user (authorize, consent, the
 * broker's connect step), at most once per request, so a token request never pays for a session lookup.
 */
export type UserIdSource = string | (() => string | undefined | Promise<string | undefined>);

/**
 * What a runtime or framework knows about a request beyond the web `Request`: the client address, the user
 * of the host's session, and a body a framework already parsed. Bun, Deno and workerd have no socket on the
 * `Request`; the adapter or the host passes what it knows.
 */
export interface FetchRequestInfo {
  readonly ip?: string;
  /** The host's user (see {@link UserIdSource}); the user id always comes from the host, never the request. */
  readonly userId?: UserIdSource;
  /**
   * The body a framework already read and parsed (`express.json()`'s `req.body`); the request's own body is
   * then not read. JSON endpoints (MCP) use it as it is.
   */
  readonly parsedBody?: unknown;
}

/**
 * A web-standard handler, the shape every Keyhold area's `fetch` has: mount it on any runtime that speaks
 * `Request`/`Response` (Bun, Deno, workerd, Hono, Next.js route handlers) or on Node through
 * `@keyhold/adapter-node`.
 *
 * @example
 * ```ts
 * const fetch: FetchHandler = async () => new Response(null, { status: 204 });
 * ```
 */
export type FetchHandler = (request: Request, info?: FetchRequestInfo) => Promise<Response>;
