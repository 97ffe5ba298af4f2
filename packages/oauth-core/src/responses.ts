import type { HandlerResult, StorageUnavailableError } from '@keyhold/core';
import {
  escapeHtml,
  htmlResult,
  jsonResult,
  NO_STORE_HEADERS,
  storageUnavailableResult,
} from '@keyhold/internal';
import type { OAuthError } from './errors.js';

/** RFC 6749 §5.2 error JSON with `Cache-Control: no-store`. */
export function oauthErrorResult(
  error: OAuthError,
  headers: Readonly<Record<string, string>> = {},
): HandlerResult {
  return jsonResult(
    error.status,
    { error: error.code, error_description: error.message },
    { ...NO_STORE_HEADERS, ...headers },
  );
}

/** A JSON success response that is never cached. */
export function noStoreJson(status: number, body: unknown): HandlerResult {
  return jsonResult(status, body, NO_STORE_HEADERS);
}

/** A whole page in Keyhold's plain style; `title` and `lang` are escaped, `content` is HTML. */
export function htmlDocument(title: string, content: string, lang = 'en'): string {
  return `<!doctype html>
<html lang="${escapeHtml(lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;line-height:1.5;color:#1a1a1a}
h1{font-size:1.4rem}ul{padding-left:1.25rem}code{background:#f2f2f2;padding:0 .25rem}
.actions{display:flex;gap:.75rem;margin-top:1.5rem}
button{font-size:1rem;min-height:44px;min-width:44px;padding:.6rem 1.2rem;border-radius:.4rem;border:1px solid #555;cursor:pointer}
.actions button{min-width:7rem}small{color:#555}.note{background:#eef3ff;border-radius:.25rem;padding:.5rem 1rem}
button[value=approve]{background:#1a4fd6;color:#fff;border-color:#1a4fd6}
button:focus-visible{outline:3px solid #ffbf47;outline-offset:2px}
.recipient{border:2px solid #1a4fd6;border-radius:.4rem;padding:.25rem 1rem;margin:1rem 0}
h2{font-size:1.15rem;margin:.75rem 0 .25rem}.grants{list-style:none;padding:0}
.grant{border:1px solid #bbb;border-radius:.4rem;padding:0 1rem .75rem;margin:1rem 0}
.activity-list{list-style:none;padding:0}.activity-entry{border-top:1px solid #ddd;padding:.5rem 0}
code{overflow-wrap:anywhere}
.recipient-host{font-size:1.15rem}.warnings{background:#fff3cd;border:1px solid #e0c060;border-radius:.25rem;padding:.5rem 1.5rem;list-style:none}
</style>
</head>
<body>
<main>
${content}
</main>
</body>
</html>`;
}

// Starting again sends the same client id, so a client the server no longer knows (a host restarted on
// memory storage, a registration expired unused) only recovers when the person makes it register anew.
const NEXT_STEP: Readonly<Record<string, string>> = {
  invalid_client:
    'This server no longer knows the application. In the application, remove this connection (or server), then add it again: it will register afresh. Starting the sign-in again alone sends the same unknown details.',
};

/**
 * An error shown to the user instead of redirecting (before the redirect URI is trusted, or when the
 * consent request cannot be found). The text is escaped.
 */
export function errorPage(
  status: number,
  error: OAuthError | { code: string; message: string },
): HandlerResult {
  const next = Object.hasOwn(NEXT_STEP, error.code)
    ? NEXT_STEP[error.code]!
    : 'Return to the application and start again.';
  return htmlResult(
    status,
    htmlDocument(
      'Authorization error',
      `<h1>This authorization request cannot continue</h1>
<p role="alert">${escapeHtml(error.message)}</p>
<p>Error code: <code>${escapeHtml(error.code)}</code></p>
<p class="next-step">${escapeHtml(next)}</p>`,
    ),
  );
}

/**
 * The answer to a storage outage: `@keyhold/core`'s 503 `temporarily_unavailable` JSON on the JSON
 * endpoints, an error page with the same status and `Retry-After` on the pages a browser shows.
 */
export function storageOutageResult(error: StorageUnavailableError, html: boolean): HandlerResult {
  const json = storageUnavailableResult(error);
  if (!html) return json;
  const page = errorPage(503, {
    code: 'temporarily_unavailable',
    message: 'The service is temporarily unavailable. Wait a moment, then try again.',
  });
  return {
    ...page,
    headers: { ...page.headers, ...NO_STORE_HEADERS, 'retry-after': json.headers['retry-after'] ?? '1' },
  };
}
