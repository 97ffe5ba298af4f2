import type { AuthEventAttributes } from '../metrics-types.js';
import type { RequestEvent } from '../request-event.js';
import type { AuthEvent } from '../storage.js';
import { catalogued } from './reasons.js';

type Endpoint = AuthEventAttributes['endpoint'];

/** The category of each endpoint that decides something; discovery documents and key sets decide nothing. */
const CATEGORY: Readonly<Partial<Record<Endpoint, AuthEvent['category']>>> = {
  authorize: 'authorize',
  consent: 'consent',
  token: 'token',
  introspect: 'introspection',
  revoke: 'revocation',
  register: 'registration',
  userinfo: 'userinfo',
};

/** Whether the endpoint decides something (and so has an event and a `reason` on its metric). */
export function decides(endpoint: Endpoint): boolean {
  return CATEGORY[endpoint] !== undefined;
}

/** The reason of an answered request whose handler named none. */
const SUCCESS: Readonly<Partial<Record<Endpoint, string>>> = {
  authorize: 'authorize.approved',
  token: 'token.issued',
  introspect: 'introspection.active',
  revoke: 'revocation.accepted',
  register: 'client.registered',
  userinfo: 'userinfo.served',
};

/**
 * The catalogue reason of one handler invocation: the one the handler set, else the endpoint's success, else
 * the refusal's OAuth error code as `request.<code>`; anything outside the catalogue is `other`.
 */
export function reasonOf(endpoint: Endpoint, status: number, event: RequestEvent): string {
  if (event.reason !== undefined) return catalogued(event.reason);
  if (status === 429) return 'request.rate_limited';
  // A refusal redirected to the client (authorize, consent) is a 302 that still carries its error.
  if (status < 400 && event.error_code === undefined) return catalogued(SUCCESS[endpoint]);
  if (status === 503) return 'request.temporarily_unavailable';
  if (status >= 500) return 'request.server_error';
  return catalogued(event.error_code === undefined ? undefined : `request.${event.error_code}`);
}

/** The event of one handler invocation, or nothing for an endpoint (or a request) that decides nothing. */
export function decisionEvent(
  endpoint: Endpoint,
  status: number,
  tenant: string,
  event: RequestEvent,
  reason: string,
  at: number,
): AuthEvent | undefined {
  const category = CATEGORY[endpoint];
  if (category === undefined || event.quiet === true) return undefined;
  return {
    at,
    tenant,
    category,
    reason,
    status,
    ...(event.error_code === undefined ? {} : { errorCode: event.error_code }),
    ...(event.grant_type === undefined ? {} : { grantType: event.grant_type }),
    ...(event.client_id === undefined ? {} : { clientId: event.client_id }),
    ...(event.user_id === undefined ? {} : { userId: event.user_id }),
    ...(event.grant_id === undefined ? {} : { grantId: event.grant_id }),
  };
}
