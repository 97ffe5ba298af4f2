import type { HandlerResult } from './handler.js';
import type { FetchRequestInfo } from './request-info.js';

/**
 * What every Keyhold area is to a host (the authorization server, the MCP endpoint, the token broker's
 * browser steps, webhooks, the registry API): one web-standard `fetch`, and `ownsPath` saying which paths
 * that `fetch` serves, so a host (or `toNodeListener` of `@keyhold/adapter-node` in front of an Express app)
 * hands every other path to its own routes.
 *
 * @example
 * ```ts
 * const area: Area = { fetch: async () => new Response(null, { status: 204 }), ownsPath: (path) => path === '/ping' };
 * ```
 */
export interface Area {
  /** Serves a request to a path this area owns; anything else is 404. */
  fetch(request: Request, info?: FetchRequestInfo): Promise<Response>;
  /** Whether `fetch` serves this path (any method): a pathname, not decoded, without the query. */
  ownsPath(pathname: string): boolean;
}

/**
 * Where an area keeps its raw handler: a registry symbol, so the Node adapter and `compose` find it without
 * it being part of any area's public type. On Node 20 a web `Request` with a body and a `Response` each cost
 * about as much as a whole token request (their streams), so an area whose endpoints read a bounded body as
 * text offers this path too; its `fetch` runs the same code.
 */
export const RAW_HANDLER: unique symbol = Symbol.for('keyhold.rawHandler') as never;

/** A request as a raw handler gets it: what a web `Request` would carry, without building one. */
export interface RawRequest {
  /** Upper-case HTTP method. */
  readonly method: string;
  /** The full public URL. */
  readonly url: string;
  /** The path without the query, not decoded. */
  readonly path: string;
  /** The raw query without `?` (empty when there is none). */
  readonly query: string;
  /** Lower-cased names; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body as text, at most `limitBytes` (else `PayloadTooLargeError`); read once. */
  readBody(limitBytes: number): Promise<string>;
  readonly info: FetchRequestInfo;
}

/** What an area serves a {@link RawRequest} with. */
export type RawHandler = (request: RawRequest) => Promise<HandlerResult>;

/** An area that also offers raw handlers, per path (`undefined`: serve that path through `fetch`). */
export interface RawArea extends Area {
  readonly [RAW_HANDLER]?: (pathname: string) => RawHandler | undefined;
}

/**
 * The raw handler an area offers for a path, if any: what `toNodeListener` of `@keyhold/adapter-node` serves
 * without building web objects.
 *
 * @example
 * ```ts
 * declare const area: Area;
 * const raw = rawHandlerOf(area, '/tenant/demo/token');
 * ```
 */
export function rawHandlerOf(area: Area, pathname: string): RawHandler | undefined {
  const offer = (area as RawArea)[RAW_HANDLER];
  return typeof offer === 'function' ? offer.call(area, pathname) : undefined;
}

function notFound(): Response {
  return new Response(JSON.stringify({ error: 'not_found', error_description: 'No such endpoint.' }), {
    status: 404,
    headers: { 'content-type': 'application/json; charset=utf-8' },
  });
}

/**
 * One {@link Area} for everything a host mounts: a request goes to the first area that owns its path (in the
 * order given), and a path no area owns is 404. `info` reaches the chosen area unchanged.
 *
 * @example
 * ```ts
 * declare const server: Area, endpoint: Area, broker: Area;
 * const keyhold = compose(server, endpoint, broker);
 * Bun.serve({ fetch: (request) => keyhold.fetch(request) });
 * ```
 */
export function compose(...areas: readonly Area[]): Area {
  for (const area of areas) {
    if (typeof area?.fetch !== 'function' || typeof area.ownsPath !== 'function') {
      throw new TypeError('compose(): every area needs fetch and ownsPath');
    }
  }
  const owner = (pathname: string): Area | undefined => areas.find((area) => area.ownsPath(pathname));
  const composed: RawArea = {
    // The owner's raw handler for the path, so a Node adapter in front of the composition still finds it.
    [RAW_HANDLER]: (pathname: string) => {
      const area = owner(pathname);
      return area === undefined ? undefined : rawHandlerOf(area, pathname);
    },
    ownsPath: (pathname) => owner(pathname) !== undefined,
    fetch(request, info) {
      const url = request.url;
      // The pathname without building a URL: everything between the authority and `?`/`#`.
      const start = url.indexOf('/', url.indexOf('//') + 2);
      const end = url.search(/[?#]/);
      const pathname = start === -1 ? '/' : url.slice(start, end === -1 ? undefined : end);
      const area = owner(pathname);
      return area === undefined ? Promise.resolve(notFound()) : area.fetch(request, info);
    },
  };
  return composed;
}
