import type { FetchRequestInfo } from './fetch-bridge.js';

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
  return {
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
}
