import type { HandlerResult } from '@keyhold/core';
import { escapeHtml, htmlResult, jsonResult, NO_STORE_HEADERS } from '@keyhold/core';
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

function page(title: string, content: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;line-height:1.5;color:#1a1a1a}
h1{font-size:1.4rem}ul{padding-left:1.25rem}code{background:#f2f2f2;padding:0 .25rem}
.actions{display:flex;gap:.75rem;margin-top:1.5rem}
button{font-size:1rem;padding:.6rem 1.2rem;border-radius:.4rem;border:1px solid #555;cursor:pointer}
button[value=approve]{background:#1a4fd6;color:#fff;border-color:#1a4fd6}
button:focus-visible{outline:3px solid #ffbf47;outline-offset:2px}
</style>
</head>
<body>
<main>
${content}
</main>
</body>
</html>`;
}

/**
 * An error shown to the user instead of redirecting (before the redirect URI is trusted, or when the
 * consent request cannot be found). The text is escaped.
 */
export function errorPage(
  status: number,
  error: OAuthError | { code: string; message: string },
): HandlerResult {
  return htmlResult(
    status,
    page(
      'Authorization error',
      `<h1>This authorization request cannot continue</h1>
<p role="alert">${escapeHtml(error.message)}</p>
<p>Error code: <code>${escapeHtml(error.code)}</code></p>
<p>Return to the application and start again.</p>`,
    ),
  );
}

/** The consent screen. Every value is escaped. */
export function consentPage(input: {
  readonly action: string;
  readonly req: string;
  readonly clientName: string;
  readonly clientHost: string;
  readonly scopes: readonly string[];
  readonly redirectUri: string;
}): HandlerResult {
  const scopes =
    input.scopes.length === 0
      ? '<p>It asks for no specific permissions.</p>'
      : `<p>It asks for these permissions:</p>
<ul aria-label="Requested permissions">
${input.scopes.map((scope) => `<li><code>${escapeHtml(scope)}</code></li>`).join('\n')}
</ul>`;
  return htmlResult(
    200,
    page(
      `Authorize ${input.clientName}`,
      `<h1>Allow <strong>${escapeHtml(input.clientName)}</strong> to access your account?</h1>
<p>The application is hosted at <strong>${escapeHtml(input.clientHost)}</strong>.</p>
${scopes}
<form method="post" action="${escapeHtml(input.action)}">
<input type="hidden" name="req" value="${escapeHtml(input.req)}">
<div class="actions">
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>`,
    ),
    // Browsers apply form-action to the redirect that follows the POST, so the client's redirect target
    // must be allowed next to 'self'.
    {
      'content-security-policy': `default-src 'none'; style-src 'unsafe-inline'; form-action 'self' ${formActionSource(input.redirectUri)}; frame-ancestors 'none'`,
    },
  );
}

function formActionSource(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.protocol === 'http:' || url.protocol === 'https:'
    ? `${url.protocol}//${url.host}`
    : url.protocol;
}
