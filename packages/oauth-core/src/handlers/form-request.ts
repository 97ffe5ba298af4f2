// The request preamble the consent and connected-apps pages share: who is signed in, the page's query or the
// posted form read, and the anti-forgery token checked. Each page keeps its own order of these steps (the
// connected-apps page sends a signed-out visitor to the login page before reading anything).
import type { HandlerRequest, HandlerResult } from '@keyhold/core';
import { constantTimeEqual, mediaType, parseForm, parseQuery } from '@keyhold/internal';
import { OAuthError } from '../errors.js';
import type { RenderedConsentPage, ServerContext } from '../options.js';
import type { RequestEvent } from '../request-event.js';
import { errorPage } from '../responses.js';
import type { Tenant } from '../tenant.js';
import { formCookieValues } from './form-cookie.js';

/** A page's handler, as the endpoint table calls it. */
export type PageHandler = (
  context: ServerContext,
  tenant: Tenant,
  request: HandlerRequest,
  event: RequestEvent,
) => Promise<HandlerResult>;

/** The signed-in user: the host's, or the tenant's single user in single-user mode. */
export function currentUser(
  context: ServerContext,
  tenant: Tenant,
  request: HandlerRequest,
): string | undefined {
  return request.userId ?? (context.singleUserMode ? tenant.config.singleUserId : undefined);
}

/** A page's parameters, or the 400 page already answered (the event names the error). */
export type PageParams =
  | { readonly ok: true; readonly params: Readonly<Record<string, string>> }
  | { readonly ok: false; readonly result: HandlerResult };

function refused(event: RequestEvent, message: string): PageParams {
  event.error_code = 'invalid_request';
  return { ok: false, result: errorPage(400, new OAuthError('invalid_request', message)) };
}

/** The query of a page's GET; a malformed one is a 400 page. */
export function readPageQuery(request: HandlerRequest, event: RequestEvent): PageParams {
  const parsed = parseQuery(request.query);
  return parsed.ok ? { ok: true, params: parsed.params } : refused(event, parsed.message);
}

/** The body of a page's form POST: urlencoded only (anything else is a 400 page), then parsed. */
export function readPageForm(request: HandlerRequest, event: RequestEvent): PageParams {
  if (mediaType(request.headers['content-type']) !== 'application/x-www-form-urlencoded') {
    return refused(event, 'The form must be sent as application/x-www-form-urlencoded.');
  }
  const parsed = parseForm(request.body);
  return parsed.ok ? { ok: true, params: parsed.params } : refused(event, parsed.message);
}

/**
 * Whether the form's `csrf_token` matches one of the anti-forgery cookie's values (double submit), the
 * expected token derived from each value by `tokenFor`; `secrets` are the values found.
 */
export function checkFormToken(
  request: HandlerRequest,
  cookieName: string,
  presented: string | undefined,
  tokenFor: (secret: string) => string,
): { readonly verified: boolean; readonly secrets: readonly string[] } {
  const secrets = formCookieValues(request.headers.cookie, cookieName);
  let verified = false;
  // Every candidate is compared, so the time taken does not depend on which one matches.
  for (const secret of secrets) {
    if (constantTimeEqual(tokenFor(secret), presented ?? '')) verified = true;
  }
  return { verified, secrets };
}

/** A rendered page's HTML and its `Content-Security-Policy`: the renderer's own, else `defaultPolicy`. */
export function pageBody(
  rendered: RenderedConsentPage,
  defaultPolicy: string,
): { readonly html: string; readonly csp: string } {
  if (typeof rendered === 'string') return { html: rendered, csp: defaultPolicy };
  return { html: rendered.html, csp: rendered.contentSecurityPolicy ?? defaultPolicy };
}
