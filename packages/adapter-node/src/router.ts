import type { Handler, HandlerRequest, HandlerResult } from '@keyhold/core';
import { jsonResult } from '@keyhold/core';

/** Path parameters captured by a route pattern (`:name` segments, and `*` as `params['*']`). */
export type RouteParams = Readonly<Record<string, string>>;

/** A handler that also receives the parameters its route captured. */
export type RouteHandler = (request: HandlerRequest, params: RouteParams) => Promise<HandlerResult>;

/** A method + path router that is itself a {@link Handler}. */
export interface Router {
  /** Adds a route. `pattern` segments are literals, `:name` (one segment) or a final `*` (the rest). */
  on(method: string | readonly string[], pattern: string, handler: RouteHandler): Router;
  /** The router as a handler: 404 when no path matches, 405 with `Allow` when only the method differs. */
  readonly handle: Handler;
}

interface Route {
  readonly methods: readonly string[];
  readonly segments: readonly string[];
  readonly handler: RouteHandler;
}

function split(path: string): string[] {
  return path.split('/').filter((segment) => segment !== '');
}

function match(
  segments: readonly string[],
  pathSegments: readonly string[],
): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if (segment === '*') {
      if (i !== segments.length - 1) return undefined;
      params['*'] = pathSegments.slice(i).join('/');
      return params;
    }
    const actual = pathSegments[i];
    if (actual === undefined) return undefined;
    if (segment.startsWith(':')) {
      let decoded: string;
      try {
        decoded = decodeURIComponent(actual);
      } catch {
        return undefined;
      }
      params[segment.slice(1)] = decoded;
    } else if (segment !== actual) {
      return undefined;
    }
  }
  return segments.length === pathSegments.length ? params : undefined;
}

/**
 * Creates a small router: routes are tried in the order they were added.
 *
 * @example
 * ```ts
 * const router = createRouter()
 *   .on('GET', '/health', async () => jsonResult(200, { status: 'ok' }))
 *   .on('POST', '/tenant/:tenant/token', (req, { tenant }) => server.token(req, tenant));
 * createServer(createNodeListener(router.handle));
 * ```
 */
export function createRouter(): Router {
  const routes: Route[] = [];
  const router: Router = {
    on(method, pattern, handler) {
      const methods = (typeof method === 'string' ? [method] : method).map((m) => m.toUpperCase());
      routes.push({ methods, segments: split(pattern), handler });
      return router;
    },
    handle: async (request) => {
      const pathSegments = split(request.path);
      const allowed = new Set<string>();
      for (const route of routes) {
        const params = match(route.segments, pathSegments);
        if (params === undefined) continue;
        if (
          route.methods.includes(request.method) ||
          (request.method === 'HEAD' && route.methods.includes('GET'))
        ) {
          return route.handler(request, params);
        }
        for (const m of route.methods) allowed.add(m);
      }
      if (allowed.size > 0) {
        return jsonResult(405, { error: 'method_not_allowed' }, { allow: [...allowed].join(', ') });
      }
      return jsonResult(404, { error: 'not_found' });
    },
  };
  return router;
}
