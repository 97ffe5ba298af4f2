import type { HandlerRequest, HandlerResult } from '@keyhold/core';
import { mediaType, parseForm, parseQuery } from '@keyhold/core';
import { OAuthError } from '../errors.js';
import type { ServerContext } from '../options.js';
import type { RequestEvent } from '../request-event.js';
import { consentPage, errorPage } from '../responses.js';
import type { PendingAuthorizationRecord } from '../storage.js';
import type { Tenant } from '../tenant.js';
import { errorRedirect, issueCode } from './authorize.js';

const EXPIRED = new OAuthError(
  'invalid_request',
  'This authorization request has expired or is unknown. Return to the application and sign in again.',
);

function currentUser(context: ServerContext, tenant: Tenant, request: HandlerRequest): string | undefined {
  return request.userId ?? (context.singleUserMode ? tenant.config.singleUserId : undefined);
}

type Lookup =
  | { readonly ok: true; readonly pending: PendingAuthorizationRecord }
  | { readonly ok: false; readonly result: HandlerResult };

async function findPending(
  context: ServerContext,
  tenant: Tenant,
  request: HandlerRequest,
  req: string | undefined,
  event: RequestEvent,
): Promise<Lookup> {
  const pending =
    req === undefined || req.length > 256
      ? undefined
      : await context.storage.pendingAuthorizations.get(tenant.slug, req);
  if (!pending || pending.expiresAt <= context.clock.now()) {
    event.error_code = EXPIRED.code;
    return { ok: false, result: errorPage(400, EXPIRED) };
  }
  event.client_type = pending.clientType;
  if (currentUser(context, tenant, request) !== pending.userId) {
    const error = new OAuthError(
      'access_denied',
      'Only the user who started this authorization request may answer it.',
    );
    event.error_code = error.code;
    return { ok: false, result: errorPage(403, error) };
  }
  return { ok: true, pending };
}

/** GET /consent?req=…: the consent screen for a pending authorization. */
export async function consentPageHandler(
  context: ServerContext,
  tenant: Tenant,
  request: HandlerRequest,
  event: RequestEvent,
): Promise<HandlerResult> {
  const parsed = parseQuery(request.query);
  if (!parsed.ok) {
    event.error_code = 'invalid_request';
    return errorPage(400, new OAuthError('invalid_request', parsed.message));
  }
  const found = await findPending(context, tenant, request, parsed.params.req, event);
  if (!found.ok) return found.result;
  const { pending } = found;
  return consentPage({
    action: `${tenant.issuer}/consent`,
    req: pending.id,
    clientName: pending.clientName,
    clientHost: pending.clientHost,
    scopes: pending.scope === '' ? [] : pending.scope.split(' '),
    redirectUri: pending.redirectUri,
  });
}

/**
 * POST /consent with the form fields `req` and `decision` (`approve` or `deny`). Only the user who started
 * the request may decide; anyone else gets 403 and the request stays. The `req` value is unguessable and
 * bound to that user, which is what protects the form against cross-site submission.
 */
export async function consentDecisionHandler(
  context: ServerContext,
  tenant: Tenant,
  request: HandlerRequest,
  event: RequestEvent,
): Promise<HandlerResult> {
  if (mediaType(request.headers['content-type']) !== 'application/x-www-form-urlencoded') {
    event.error_code = 'invalid_request';
    return errorPage(
      400,
      new OAuthError('invalid_request', 'The form must be sent as application/x-www-form-urlencoded.'),
    );
  }
  const parsed = parseForm(request.body);
  if (!parsed.ok) {
    event.error_code = 'invalid_request';
    return errorPage(400, new OAuthError('invalid_request', parsed.message));
  }
  const { req, decision } = parsed.params;
  if (decision !== 'approve' && decision !== 'deny') {
    event.error_code = 'invalid_request';
    return errorPage(400, new OAuthError('invalid_request', 'decision must be "approve" or "deny".'));
  }
  const found = await findPending(context, tenant, request, req, event);
  if (!found.ok) return found.result;
  // Taken atomically: of two concurrent decisions only one proceeds.
  const pending = await context.storage.pendingAuthorizations.consume(tenant.slug, found.pending.id);
  if (!pending) {
    event.error_code = EXPIRED.code;
    return errorPage(400, EXPIRED);
  }
  if (decision === 'deny') {
    return errorRedirect(
      tenant,
      pending.redirectUri,
      pending.state,
      new OAuthError('access_denied', 'the user denied the request'),
      event,
    );
  }
  const now = context.clock.now();
  if (!tenant.firstPartyClientIds.has(pending.clientId)) {
    await context.storage.consents.save(tenant.slug, {
      userId: pending.userId,
      clientId: pending.clientId,
      scopes: pending.scope === '' ? [] : pending.scope.split(' '),
      grantedAt: now,
      expiresAt: now + context.consentTtlMs,
    });
  }
  return issueCode(context, tenant, pending, pending.userId);
}
