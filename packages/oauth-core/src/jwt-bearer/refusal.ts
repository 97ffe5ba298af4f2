import type { OAuthErrorCode } from '../errors.js';
import { OAuthError } from '../errors.js';
import type { RequestEvent } from '../request-event.js';

/**
 * A jwt-bearer refusal: the wire error (RFC 6749 §5.2) plus a stable reason code (`id_jag.replayed`, …) put
 * on the request's event for logs and audits. The description names the rule, never the assertion's content.
 */
export function refusal(
  event: RequestEvent,
  reason: string,
  description: string,
  code: OAuthErrorCode = 'invalid_grant',
): OAuthError {
  event.reason = reason;
  return new OAuthError(code, description);
}
