import type { HandlerRequest, HandlerResult } from '@keyhold/core';
import { htmlResult, isAllowedOrigin, randomToken, sha256Base64url } from '@keyhold/internal';
import {
  type ConsentDetails,
  type ConsentView,
  consentRecipient,
  formActionSource,
  renderConsentPage,
} from '../consent-screen.js';
import { OAuthError } from '../errors.js';
import type { ServerContext } from '../options.js';
import type { RequestEvent } from '../request-event.js';
import { errorPage } from '../responses.js';
import { scopeList } from '../scopes.js';
import type { PendingAuthorizationRecord } from '../storage.js';
import type { Tenant } from '../tenant.js';
import { errorRedirect, issueCode } from './authorize.js';
import { connectedAppsUrl } from './connected-apps.js';
import { formCookieValues } from './form-cookie.js';
import { checkFormToken, currentUser, pageBody, readPageForm, readPageQuery } from './form-request.js';

const EXPIRED = new OAuthError(
  'invalid_request',
  'This authorization request has expired or is unknown. Return to the application and sign in again.',
);

/** The cookie holding the consent form's anti-forgery secret (scoped to the tenant's consent path). */
export const CONSENT_COOKIE = 'keyhold_consent';
/** The form's `csrf_token`: bound to the cookie's secret AND the pending authorization it answers. */
export function consentFormToken(cookieValue: string, req: string): string {
  return sha256Base64url(`${cookieValue}.${req}`);
}

function consentPath(tenant: Tenant): string {
  return new URL(`${tenant.issuer}/consent`).pathname;
}

function consentCookie(context: ServerContext, tenant: Tenant, value: string): string {
  const secure = tenant.issuer.startsWith('https:') ? '; Secure' : '';
  const maxAge = Math.ceil(context.pendingAuthorizationTtlMs / 1000);
  return `${CONSENT_COOKIE}=${value}; Path=${consentPath(tenant)}; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secure}`;
}

const CROSS_ORIGIN = new OAuthError('invalid_request', 'cross-origin request refused', { status: 403 });

/**
 * The Origin check of `POST /consent`: a present `Origin` that is not the server's own is refused with 403
 * (thrown). The endpoint runs it before the consent rate limit, so a page on another site spends nothing.
 */
export function refuseCrossOriginConsent(context: ServerContext, request: HandlerRequest): void {
  const origin = request.headers.origin;
  if (origin !== undefined && !isAllowedOrigin(origin, [context.origin])) throw CROSS_ORIGIN;
}

const FORGED = new OAuthError(
  'invalid_request',
  'The consent form could not be verified (its anti-forgery token is missing or wrong). Reload the consent page and decide again.',
);

type Lookup =
  | { readonly ok: true; readonly pending: PendingAuthorizationRecord }
  | { readonly ok: false; readonly result: HandlerResult };

export async function findPending(
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
    event.reason = 'consent.expired';
    return { ok: false, result: errorPage(400, EXPIRED) };
  }
  event.client_type = pending.clientType;
  event.client_id = pending.clientId;
  if (currentUser(context, tenant, request) !== pending.userId) {
    const error = new OAuthError(
      'access_denied',
      'Only the user who started this authorization request may answer it.',
    );
    event.error_code = error.code;
    event.reason = 'consent.wrong_user';
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
  const parsed = readPageQuery(request, event);
  if (!parsed.ok) return parsed.result;
  const found = await findPending(context, tenant, request, parsed.params.req, event);
  if (!found.ok) return found.result;
  // Showing the page decides nothing (authorize already said `authorize.consent_shown`): counted only.
  event.quiet = true;
  event.reason = 'consent.page_shown';
  const { pending } = found;
  // One secret per browser, reused while it lives, so two consent tabs both keep working.
  const secret = formCookieValues(request.headers.cookie, CONSENT_COOKIE)[0] ?? randomToken(32);
  const details = await consentDetails(context, tenant, pending);
  const view: ConsentView = {
    ...details,
    form: {
      action: `${tenant.issuer}/consent`,
      fields: { req: pending.id, csrf_token: consentFormToken(secret, pending.id) },
      decisionField: 'decision',
      approveValue: 'approve',
      denyValue: 'deny',
    },
  };
  const rendered = await context.consent.render(view, context.consent.strings, renderConsentPage);
  const { html, csp } = pageBody(
    rendered,
    `default-src 'none'; style-src 'unsafe-inline'; form-action 'self' ${formActionSource(pending.redirectUri)}; frame-ancestors 'none'`,
  );
  return htmlResult(200, html, {
    // Browsers apply form-action to the redirect that follows the POST, so the client's redirect target
    // must be allowed next to 'self'. `same-origin` referrers make the form POST carry the real `Origin`
    // (with `no-referrer` browsers send `Origin: null`), and still give the client no Referer.
    'content-security-policy': csp,
    'referrer-policy': 'same-origin',
    'set-cookie': consentCookie(context, tenant, secret),
  });
}

/** What the consent screen shows about a pending authorization. */
export async function consentDetails(
  context: ServerContext,
  tenant: Tenant,
  pending: PendingAuthorizationRecord,
): Promise<ConsentDetails> {
  let websiteHost: string | undefined;
  if (pending.clientType === 'registered') {
    const record = await context.storage.clients.get(tenant.slug, pending.clientId);
    if (record?.clientUri !== undefined) {
      try {
        websiteHost = new URL(record.clientUri).host || undefined;
      } catch {
        websiteHost = undefined;
      }
    }
  }
  const { displayName, scopeDescriptions } = tenant.config;
  const claims = await context.userClaims?.(tenant.slug, pending.userId, scopeList(pending.scope));
  const userName = typeof claims?.name === 'string' && claims.name !== '' ? claims.name : undefined;
  return {
    tenant: tenant.slug,
    serviceName: typeof displayName === 'string' && displayName !== '' ? displayName : tenant.slug,
    user: { id: pending.userId, ...(userName === undefined ? {} : { name: userName }) },
    scopeDescriptions: { ...scopeDescriptions },
    requestId: pending.id,
    client: {
      id: pending.clientId,
      name: pending.clientName,
      type: pending.clientType,
      ...(websiteHost === undefined ? {} : { websiteHost }),
      ...(pending.clientType === 'metadata_document' ? { documentHost: pending.clientHost } : {}),
    },
    scopes: scopeList(pending.scope),
    redirectUri: pending.redirectUri,
    recipient: consentRecipient(pending.redirectUri),
    ...(context.connectedApps.enabled ? { connectedAppsUrl: connectedAppsUrl(tenant) } : {}),
  };
}

/**
 * POST /consent with the form fields `req`, `decision` (`approve` or `deny`) and `csrf_token`. Refused with
 * 403, leaving the request pending: a present `Origin` that is not the server's own (checked by the endpoint
 * first, {@link refuseCrossOriginConsent}), a `csrf_token` that
 * does not match the consent cookie and `req` (double-submit, compared in constant time), and any user
 * other than the one who started the request.
 */
export async function consentDecisionHandler(
  context: ServerContext,
  tenant: Tenant,
  request: HandlerRequest,
  event: RequestEvent,
): Promise<HandlerResult> {
  const parsed = readPageForm(request, event);
  if (!parsed.ok) return parsed.result;
  const { req, decision, csrf_token: csrfToken } = parsed.params;
  if (decision !== 'approve' && decision !== 'deny') {
    event.error_code = 'invalid_request';
    return errorPage(400, new OAuthError('invalid_request', 'decision must be "approve" or "deny".'));
  }
  const { verified, secrets } = checkFormToken(request, CONSENT_COOKIE, csrfToken, (secret) =>
    consentFormToken(secret, req ?? ''),
  );
  if (req === undefined || !verified) {
    event.error_code = FORGED.code;
    event.reason = 'consent.forged';
    context.logger.warn(
      {
        event: 'consent_refused',
        reason: 'anti_forgery',
        tenant: tenant.slug,
        hasCookie: secrets.length > 0,
        hasToken: csrfToken !== undefined,
      },
      'consent decision refused: anti-forgery check failed',
    );
    return errorPage(403, FORGED);
  }
  const found = await findPending(context, tenant, request, req, event);
  if (!found.ok) return found.result;
  return decideConsent(context, tenant, found.pending.id, decision, event);
}

/**
 * Carries out the user's decision on a pending authorization whose user was already checked: taken
 * atomically (of two concurrent decisions only one proceeds), then a redirect to the client with a code or
 * `access_denied`.
 */
export async function decideConsent(
  context: ServerContext,
  tenant: Tenant,
  pendingId: string,
  decision: 'approve' | 'deny',
  event: RequestEvent,
): Promise<HandlerResult> {
  const pending = await context.storage.pendingAuthorizations.consume(tenant.slug, pendingId);
  if (!pending) {
    event.error_code = EXPIRED.code;
    event.reason = 'consent.expired';
    return errorPage(400, EXPIRED);
  }
  event.client_type = pending.clientType;
  event.client_id = pending.clientId;
  event.user_id = pending.userId;
  event.reason = decision === 'deny' ? 'consent.denied' : 'consent.approved';
  if (decision === 'deny') {
    context.logger.info(
      { event: 'consent_denied', tenant: tenant.slug, clientId: pending.clientId, userId: pending.userId },
      'the user denied the authorization request',
    );
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
      scopes: scopeList(pending.scope),
      grantedAt: now,
      expiresAt: now + context.consentTtlMs,
    });
  }
  return issueCode(context, tenant, pending, pending.userId);
}
