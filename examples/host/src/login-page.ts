import type { HandlerRequest, HandlerResult } from '@keyhold/core';
import {
  escapeHtml,
  htmlResult,
  isAllowedOrigin,
  originOf,
  parseForm,
  parseQuery,
  redirectResult,
} from '@keyhold/core';
import type { SessionCookies } from './session.js';

const USER_ID = /^[a-zA-Z0-9._@-]{1,64}$/;

/**
 * Only same-origin paths may be returned to after login, so the page cannot be used as an open redirect.
 * The authorization server sends an absolute URL under the host's own base URL.
 */
function safeReturnTo(value: string | undefined, baseUrl: string): string {
  if (!value) return '/';
  try {
    const url = new URL(value, baseUrl);
    if (url.origin !== new URL(baseUrl).origin) return '/';
    // The absolute URL, never a path: `/..//evil.example` normalises to the path `//evil.example`,
    // which a browser reads as another host.
    return url.href;
  } catch {
    return '/';
  }
}

function page(returnTo: string, error?: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Development login</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}
.warn{background:#fff3cd;border:1px solid #e0c060;padding:.75rem;border-radius:.25rem}
label,input,button{display:block;margin:.5rem 0;font-size:1rem}</style></head><body>
<main><h1>Development login</h1>
<p class="warn" role="note"><strong>For development only.</strong> Anyone can sign in as any user here. A real host
plugs federated login (see <code>createFederatedLogin</code> in <code>@keyhold/oauth-core</code>) in place of this page.</p>
${error ? `<p role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post">
<input type="hidden" name="return_to" value="${escapeHtml(returnTo)}">
<label for="user">User id</label><input id="user" name="user" autocomplete="username" required pattern="[a-zA-Z0-9._@-]{1,64}">
<button type="submit">Sign in</button></form></main></body></html>`;
}

// `same-origin` (not the default `no-referrer`) so that browsers send the page's real Origin with the form.
const PAGE_HEADERS = { 'referrer-policy': 'same-origin' };

/**
 * The development login page: GET shows the form, POST sets the signed session cookie and returns. A POST
 * whose `Origin` is present and not the host's own is refused with 403 (login CSRF: another site must not
 * sign the browser in as a user of its choosing).
 */
export function createDevLogin(options: { baseUrl: string; sessions: SessionCookies; now: () => number }) {
  const ownOrigin = originOf(options.baseUrl) ?? '';
  return async (request: HandlerRequest): Promise<HandlerResult> => {
    if (request.method === 'GET') {
      const query = parseQuery(request.query);
      const returnTo = safeReturnTo(query.ok ? query.params['return_to'] : undefined, options.baseUrl);
      return htmlResult(200, page(returnTo), PAGE_HEADERS);
    }
    const origin = request.headers['origin'];
    if (origin !== undefined && !isAllowedOrigin(origin, [ownOrigin])) {
      return htmlResult(403, page('/', 'cross-origin request refused'), PAGE_HEADERS);
    }
    const form = parseForm(request.body);
    if (!form.ok) return htmlResult(400, page('/', form.message));
    const returnTo = safeReturnTo(form.params['return_to'], options.baseUrl);
    const user = form.params['user'] ?? '';
    if (!USER_ID.test(user))
      return htmlResult(400, page(returnTo, 'User ids are 1–64 letters, digits, ".", "_", "@" or "-".'));
    return redirectResult(returnTo, { 'set-cookie': options.sessions.issue(user, options.now()) });
  };
}
