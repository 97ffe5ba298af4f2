// What the jwt-bearer grant tests share, whichever trust the assertion is judged by (ID-JAG or workload).
import type { HandlerResult, Logger } from '@keyhold/core';
import { postForm, type TestServer } from '../helpers.js';

/** The RFC 7523 grant type. */
export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** A logger that keeps every line's fields in `logs`, so a test can read the refusal's reason code. */
export function capturingLogger(logs: Record<string, unknown>[]): Logger {
  const push = (fields: unknown) => {
    if (typeof fields === 'object' && fields !== null) logs.push(fields as Record<string, unknown>);
  };
  return { debug: push, info: push, warn: push, error: push } as Logger;
}

/** A jwt-bearer token request with `assertion` (none when undefined), `extra` form fields and `headers`. */
export function redeemAssertion(
  t: TestServer,
  assertion: string | undefined,
  extra: Record<string, string> = {},
  headers: Record<string, string> = {},
): Promise<HandlerResult> {
  return t.server.token(
    postForm(
      '/tenant/demo/token',
      { grant_type: JWT_BEARER, ...(assertion === undefined ? {} : { assertion }), ...extra },
      headers,
    ),
    'demo',
  );
}
