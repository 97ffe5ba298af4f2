import type { SessionCookies } from './session.js';

const USER_ID = /^[a-zA-Z0-9._@-]{1,64}$/;
/** The login form is two short fields; anything larger is not this page's form. */
const MAX_FORM_BYTES = 4096;

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
${error ? `<p role="alert">${escapeText(error)}</p>` : ''}
<form method="post">
<input type="hidden" name="return_to" value="${escapeText(returnTo)}">
<label for="user">User id</label><input id="user" name="user" autocomplete="username" required pattern="[a-zA-Z0-9._@-]{1,64}">
<button type="submit">Sign in</button></form></main></body></html>`;
}

// The page never frames, caches or refers; `same-origin` (not `no-referrer`) so that browsers send the page's
// real Origin with the form.
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  'referrer-policy': 'same-origin',
};

function htmlPage(status: number, html: string): Response {
  return new Response(html, { status, headers: PAGE_HEADERS });
}

/** Text and attribute values in the page: the five characters HTML gives meaning to, as references. */
function escapeText(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The form body, or `undefined` when it is larger than the form can be (declared or counted as it arrives). */
async function readForm(request: Request): Promise<URLSearchParams | undefined> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > MAX_FORM_BYTES) return undefined;
  const reader = request.body?.getReader();
  if (reader === undefined) return new URLSearchParams();
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_FORM_BYTES) {
      await reader.cancel();
      return undefined;
    }
    text += decoder.decode(value, { stream: true });
  }
  return new URLSearchParams(text + decoder.decode());
}

/**
 * The development login page: GET shows the form, POST sets the signed session cookie and returns. A POST
 * whose `Origin` is present and not the host's own is refused with 403 (login CSRF: another site must not
 * sign the browser in as a user of its choosing).
 */
export function createDevLogin(options: { baseUrl: string; sessions: SessionCookies; now: () => number }) {
  const ownOrigin = new URL(options.baseUrl).origin;
  return async (request: Request): Promise<Response> => {
    if (request.method === 'GET') {
      const returnTo = safeReturnTo(
        new URL(request.url).searchParams.get('return_to') ?? undefined,
        options.baseUrl,
      );
      return htmlPage(200, page(returnTo));
    }
    const origin = request.headers.get('origin');
    if (origin !== null && origin !== ownOrigin)
      return htmlPage(403, page('/', 'cross-origin request refused'));
    const form = await readForm(request);
    if (form === undefined) return htmlPage(413, page('/', 'the form is too large'));
    const returnTo = safeReturnTo(form.get('return_to') ?? undefined, options.baseUrl);
    const user = form.get('user') ?? '';
    if (!USER_ID.test(user))
      return htmlPage(400, page(returnTo, 'User ids are 1–64 letters, digits, ".", "_", "@" or "-".'));
    return new Response(null, {
      status: 302,
      headers: {
        location: returnTo,
        'cache-control': 'no-store',
        'set-cookie': options.sessions.issue(user, options.now()),
      },
    });
  };
}
