import type { Area } from '@keyhold/core';
import type { StorageReadiness } from './storage.js';

const READY_PATH = '/health/ready';
const LOGIN_PATH = /^\/tenant\/[^/]+\/login$/;

/** What the host's own routes need: the dev login page, and the readiness check of its stores. */
export interface HostRoutesOptions {
  readonly login: (request: Request) => Promise<Response>;
  readonly checkReadiness: () => Promise<StorageReadiness>;
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return Response.json(body, { status, headers: { 'cache-control': 'no-store', ...headers } });
}

function notAllowed(allow: string): Response {
  return json(405, { error: 'method_not_allowed' }, { allow });
}

/**
 * The routes the host serves itself, as one more area next to Keyhold's: `GET /health/ready` and the dev
 * login page at `/tenant/<slug>/login` (`/health` is the registry API's).
 */
export function createHostRoutes(options: HostRoutesOptions): Area {
  const ownsPath = (pathname: string): boolean => pathname === READY_PATH || LOGIN_PATH.test(pathname);
  return {
    ownsPath,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      if (path === READY_PATH) {
        if (request.method !== 'GET' && request.method !== 'HEAD') return notAllowed('GET, HEAD');
        // Readiness, unlike /health (liveness): each configured store must answer within a second. A load
        // balancer takes an instance whose database or Redis is down out of rotation instead of sending it
        // requests that would answer 503.
        const { down } = await options.checkReadiness();
        return down.length === 0
          ? json(200, { status: 'ready' })
          : json(503, { status: 'unavailable', down }, { 'retry-after': '5' });
      }
      if (!ownsPath(path)) return json(404, { error: 'not_found' });
      if (request.method !== 'GET' && request.method !== 'POST') return notAllowed('GET, POST');
      // The login page sets the session; it never reads the user, so `info.userId` is not resolved.
      return options.login(request);
    },
  };
}
