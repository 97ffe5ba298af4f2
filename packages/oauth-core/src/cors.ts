import type { HandlerRequest, HandlerResult } from '@keyhold/core';
import { isAllowedOrigin } from '@keyhold/internal';

/** Request headers browsers may send to the JSON endpoints (Authorization for Basic client auth). */
const ALLOWED_HEADERS = 'authorization, content-type, dpop, mcp-protocol-version';

/**
 * The `Access-Control-Allow-Origin` value for a request's `Origin`: `*` when any origin may call (the JSON
 * endpoints use no cookies, so nothing ambient is exposed), the origin itself when listed, none otherwise.
 */
export function allowOriginFor(
  origin: string | undefined,
  allowed: readonly string[] | 'any',
): string | undefined {
  if (allowed === 'any') return '*';
  return origin !== undefined && isAllowedOrigin(origin, allowed) ? origin : undefined;
}

/**
 * Response headers a browser client must read: the DPoP nonce to retry with (RFC 9449 §8) and the
 * challenges of a refusal (RFC 9449 §7.1).
 */
const EXPOSED_HEADERS = 'dpop-nonce, www-authenticate';

/** The CORS headers of an actual (non-preflight) response. */
export function corsHeaders(
  request: HandlerRequest,
  allowed: readonly string[] | 'any',
): Readonly<Record<string, string>> {
  const allowOrigin = allowOriginFor(request.headers.origin, allowed);
  if (allowOrigin === undefined) return allowed === 'any' ? {} : { vary: 'origin' };
  return allowOrigin === '*'
    ? { 'access-control-allow-origin': '*', 'access-control-expose-headers': EXPOSED_HEADERS }
    : {
        'access-control-allow-origin': allowOrigin,
        'access-control-expose-headers': EXPOSED_HEADERS,
        vary: 'origin',
      };
}

/**
 * The answer to a CORS preflight (`OPTIONS` with `Access-Control-Request-Method`): 204 with the allowed
 * methods and headers for an allowed origin, 403 without CORS headers otherwise (the browser then refuses
 * the real request, and the 403 says why to anyone reading the network log).
 */
export function preflightResult(
  request: HandlerRequest,
  allowed: readonly string[] | 'any',
  methods: readonly string[],
  maxAgeSeconds: number,
): HandlerResult {
  const allowOrigin = allowOriginFor(request.headers.origin, allowed);
  if (allowOrigin === undefined) {
    return {
      status: 403,
      headers: { 'content-type': 'application/json; charset=utf-8', vary: 'origin' },
      body: JSON.stringify({
        error: 'invalid_request',
        error_description: 'This origin may not call this endpoint.',
      }),
    };
  }
  return {
    status: 204,
    headers: {
      'access-control-allow-origin': allowOrigin,
      'access-control-allow-methods': [...methods, 'OPTIONS'].join(', '),
      'access-control-allow-headers': ALLOWED_HEADERS,
      'access-control-max-age': String(maxAgeSeconds),
      ...(allowOrigin === '*' ? {} : { vary: 'origin' }),
    },
  };
}
