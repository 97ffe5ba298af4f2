import type { HandlerRequest } from '@keyhold/core';
import type { ConsentDetails } from './consent-screen.js';
import { consentDetails, decideConsent, findPending } from './handlers/consent.js';
import type { ServerContext } from './options.js';
import type { RequestEvent } from './request-event.js';
import type { Tenant } from './tenant.js';

/**
 * The outcome of a decision: `ok` with the URL to send the browser to (the client's redirect URI with a
 * code, or with `error=access_denied`), or `reason: 'expired'` when the request was answered already or
 * timed out.
 */
export type ConsentDecision =
  | { readonly ok: true; readonly location: string }
  | { readonly ok: false; readonly reason: 'expired' };

/**
 * A pending authorization as data, for a host that renders and serves its own consent page: what to show,
 * and the two answers. Each answer can be given once; the first of two concurrent answers wins.
 *
 * @example
 * ```ts
 * const found = await server.consentRequest('demo', requestId, session.userId);
 * if (found.ok) {
 *   const decision = await found.request.approve();
 *   if (decision.ok) reply.redirect(decision.location);
 * }
 * ```
 */
export interface ConsentRequest extends ConsentDetails {
  approve(): Promise<ConsentDecision>;
  deny(): Promise<ConsentDecision>;
}

/**
 * What `server.consentRequest` finds: `ok` with the pending request, or why not: nothing to show
 * (`expired`: unknown, answered or timed out; `unknown_tenant`), or a request another user started
 * (`wrong_user`), which must not be shown.
 */
export type ConsentLookup =
  | { readonly ok: true; readonly request: ConsentRequest }
  | { readonly ok: false; readonly reason: 'expired' | 'unknown_tenant' | 'wrong_user' };

/** Finds a pending authorization for `userId` and wraps it with its two answers. */
export async function lookUpConsentRequest(
  context: ServerContext,
  tenant: Tenant,
  requestId: string,
  userId: string | undefined,
  record: (status: number, event: RequestEvent) => void,
): Promise<ConsentLookup> {
  const event: RequestEvent = {};
  const request: HandlerRequest = {
    method: 'GET',
    path: '',
    query: '',
    headers: {},
    body: '',
    ...(userId === undefined ? {} : { userId }),
  };
  const found = await findPending(context, tenant, request, requestId, event);
  if (!found.ok) return { ok: false, reason: found.result.status === 403 ? 'wrong_user' : 'expired' };
  const details = await consentDetails(context, tenant, found.pending);
  const answer = async (decision: 'approve' | 'deny'): Promise<ConsentDecision> => {
    const decisionEvent: RequestEvent = {};
    const result = await decideConsent(context, tenant, found.pending.id, decision, decisionEvent);
    record(result.status, decisionEvent);
    const location = result.headers['location'];
    return location === undefined ? { ok: false, reason: 'expired' } : { ok: true, location };
  };
  return {
    ok: true,
    request: { ...details, approve: () => answer('approve'), deny: () => answer('deny') },
  };
}
