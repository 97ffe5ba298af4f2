import type { HandlerRequest, HandlerResult } from '@keyhold/core';
import {
  htmlResult,
  NO_STORE_HEADERS,
  randomToken,
  redirectResult,
  sha256Base64url,
} from '@keyhold/internal';
import type { ConnectedAppsView } from '../connected-apps-screen.js';
import { builtInScopeWords } from '../consent-screen.js';
import { OAuthError } from '../errors.js';
import { createGrantAdministration } from '../grant-administration.js';
import type { ServerContext } from '../options.js';
import { withQuery } from '../redirect-uri.js';
import type { RequestEvent } from '../request-event.js';
import { errorPage } from '../responses.js';
import type { GrantRecord } from '../storage.js';
import type { Tenant } from '../tenant.js';
import { formCookieValues } from './form-cookie.js';
import {
  checkFormToken,
  currentUser,
  type PageHandler,
  pageBody,
  readPageForm,
  readPageQuery,
} from './form-request.js';
import { recentActivity } from './recent-activity.js';

/** The cookie holding the connected-apps forms' anti-forgery secret (scoped to the page's path). */
export const CONNECTED_APPS_COOKIE = 'keyhold_apps';
/** One page: a person with more connected apps than this is an administration case (`server.grants`). */
const PAGE_SIZE = 100;

/** The page's URL under a tenant's issuer. */
export function connectedAppsUrl(tenant: Tenant): string {
  return `${tenant.issuer}/connected-apps`;
}

/**
 * The forms' `csrf_token`: the consent page's double-submit scheme, bound to the cookie's secret AND the
 * signed-in user, so a token seen by one person is worthless in another's session.
 */
export function connectedAppsFormToken(cookieValue: string, userId: string): string {
  return sha256Base64url(`${cookieValue}.connected-apps.${userId}`);
}

function cookieHeader(tenant: Tenant, value: string): string {
  const secure = tenant.issuer.startsWith('https:') ? '; Secure' : '';
  // A session cookie: a page left open for hours still revokes.
  return `${CONNECTED_APPS_COOKIE}=${value}; Path=${new URL(connectedAppsUrl(tenant)).pathname}; HttpOnly; SameSite=Strict${secure}`;
}

/** A connected-apps handler's part for the signed-in person `userId`. */
type SignedInHandler = (
  context: ServerContext,
  tenant: Tenant,
  request: HandlerRequest,
  event: RequestEvent,
  userId: string,
) => Promise<HandlerResult>;

/**
 * Runs `handle` for the signed-in person; with no one signed in, what authorize does: the host's login page
 * with the way back (a 303, so a revoke POST comes back as a GET of the page).
 */
function forSignedInUser(handle: SignedInHandler): PageHandler {
  return async (context, tenant, request, event) => {
    const userId = currentUser(context, tenant, request);
    if (userId !== undefined) return handle(context, tenant, request, event, userId);
    const result = redirectResult(withQuery(tenant.loginUrl, { return_to: connectedAppsUrl(tenant) }));
    return { ...result, status: 303 };
  };
}

const FORGED = new OAuthError(
  'invalid_request',
  'The form could not be verified (its anti-forgery token is missing or wrong). Reload the connected apps page and try again.',
  { status: 403 },
);

/**
 * A client's name for the list, read from the client store for registered clients (no remote fetch). An
 * event names only the client id: an `https:` id is a metadata document's, any other a registered client's.
 */
async function clientNames(
  context: ServerContext,
  tenant: Tenant,
  grants: readonly Pick<GrantRecord, 'clientId' | 'clientType'>[],
): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const registered = [...new Set(grants.filter((g) => g.clientType === 'registered').map((g) => g.clientId))];
  const records = await Promise.all(registered.map((id) => context.storage.clients.get(tenant.slug, id)));
  registered.forEach((id, index) => {
    const name = records[index]?.clientName;
    names.set(id, typeof name === 'string' && name !== '' ? name : id);
  });
  for (const grant of grants) {
    if (grant.clientType !== 'metadata_document' || names.has(grant.clientId)) continue;
    let host = grant.clientId;
    try {
      host = new URL(grant.clientId).host || grant.clientId;
    } catch {
      // Kept as the id: a stored id is shown, never trusted.
    }
    names.set(grant.clientId, host);
  }
  return names;
}

/** GET {issuer}/connected-apps[?notice=revoked|not_found]: the signed-in person's grants. */
export const connectedAppsPageHandler: PageHandler = forSignedInUser(
  async (context, tenant, request, event, userId) => {
    const parsed = readPageQuery(request, event);
    if (!parsed.ok) return parsed.result;
    const noticeParam = parsed.params.notice;
    const notice = noticeParam === 'revoked' || noticeParam === 'not_found' ? noticeParam : undefined;
    const [grants, activity] = await Promise.all([
      context.storage.grants.list(tenant.slug, { userId, limit: PAGE_SIZE }),
      recentActivity(context, tenant, userId),
    ]);
    const eventClients = (Array.isArray(activity) ? activity : []).flatMap((entry) =>
      entry.clientId === undefined
        ? []
        : [
            {
              clientId: entry.clientId,
              clientType: entry.clientId.startsWith('https://')
                ? ('metadata_document' as const)
                : ('registered' as const),
            },
          ],
    );
    const [names, claims] = await Promise.all([
      clientNames(context, tenant, [...grants, ...eventClients]),
      context.userClaims?.(tenant.slug, userId, ['profile']),
    ]);
    const userName = typeof claims?.name === 'string' && claims.name !== '' ? claims.name : undefined;
    const { displayName, scopeDescriptions } = tenant.config;
    const secret = formCookieValues(request.headers.cookie, CONNECTED_APPS_COOKIE)[0] ?? randomToken(32);
    const view: ConnectedAppsView = {
      tenant: tenant.slug,
      serviceName: typeof displayName === 'string' && displayName !== '' ? displayName : tenant.slug,
      user: { id: userId, ...(userName === undefined ? {} : { name: userName }) },
      grants: grants.map((grant) => ({
        grantId: grant.grantId,
        client: {
          id: grant.clientId,
          name: names.get(grant.clientId) ?? grant.clientId,
          type: grant.clientType,
        },
        kind: grant.kind,
        scopes: grant.scopes,
        offlineAccess: grant.offlineAccess,
        createdAt: grant.createdAt,
        lastUsedAt: grant.lastUsedAt,
      })),
      scopeDescriptions: { ...builtInScopeWords(context.consent.strings), ...scopeDescriptions },
      ...(activity === undefined
        ? {}
        : {
            activity:
              activity === 'unavailable'
                ? activity
                : activity.map((entry) => ({
                    at: entry.at,
                    category: entry.category,
                    reason: entry.reason,
                    ...(entry.clientId === undefined
                      ? {}
                      : {
                          client: { id: entry.clientId, name: names.get(entry.clientId) ?? entry.clientId },
                        }),
                  })),
          }),
      ...(notice === undefined ? {} : { notice }),
      form: {
        action: connectedAppsUrl(tenant),
        fields: { csrf_token: connectedAppsFormToken(secret, userId) },
        grantField: 'grant_id',
      },
    };
    const { render, builtIn, strings } = context.connectedApps;
    const rendered = await render(view, strings, builtIn);
    const { html, csp } = pageBody(
      rendered,
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
    );
    return htmlResult(200, html, {
      ...NO_STORE_HEADERS,
      'content-security-policy': csp,
      // `same-origin` keeps the form POST's real `Origin` (see the consent page).
      'referrer-policy': 'same-origin',
      'set-cookie': cookieHeader(tenant, secret),
    });
  },
);

/**
 * POST {issuer}/connected-apps with `grant_id` and `csrf_token`: revokes one grant of the signed-in person,
 * then 303 back to the page with `notice=revoked`, or `notice=not_found` for an unknown id, another person's
 * grant and one already revoked alike. Refused with 403 (nothing revoked): a present cross-site `Origin`
 * (checked by the endpoint first) and a `csrf_token` that does not match the cookie and the user.
 */
export const connectedAppsRevokeHandler: PageHandler = forSignedInUser(
  async (context, tenant, request, event, userId) => {
    const parsed = readPageForm(request, event);
    if (!parsed.ok) return parsed.result;
    const { grant_id: grantId, csrf_token: csrfToken } = parsed.params;
    const { verified } = checkFormToken(request, CONNECTED_APPS_COOKIE, csrfToken, (secret) =>
      connectedAppsFormToken(secret, userId),
    );
    if (!verified) {
      event.error_code = FORGED.code;
      context.logger.warn(
        { event: 'grant_revoke_refused', reason: 'anti_forgery', tenant: tenant.slug },
        'connected apps: revoke refused, anti-forgery check failed',
      );
      return errorPage(403, FORGED);
    }
    const notice = await revokeOwn(context, tenant, userId, grantId);
    return { ...redirectResult(withQuery(connectedAppsUrl(tenant), { notice })), status: 303 };
  },
);

/** Revokes an active grant of `userId`; anything else (unknown, foreign, already revoked) is `not_found`. */
async function revokeOwn(
  context: ServerContext,
  tenant: Tenant,
  userId: string,
  grantId: string | undefined,
): Promise<'revoked' | 'not_found'> {
  if (grantId === undefined || grantId === '' || grantId.length > 256) return 'not_found';
  const found = await context.storage.grants.get(tenant.slug, grantId);
  if (found === undefined || found.userId !== userId || found.revokedAt !== undefined) return 'not_found';
  // The revocation logs `grant_revoked` (reason `user`) and emits its event; an already revoked grant is
  // refused above because revoking is idempotent and would answer ok.
  const outcome = await createGrantAdministration(context).revoke(tenant.slug, grantId, { userId });
  return outcome.ok ? 'revoked' : 'not_found';
}
