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
.recipient{border:2px solid #1a4fd6;border-radius:.4rem;padding:.25rem 1rem;margin:1rem 0}
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

/** What the consent screen shows and posts. */
export interface ConsentPageInput {
  readonly action: string;
  readonly req: string;
  /** The anti-forgery value the form posts as `csrf_token`. */
  readonly csrfToken: string;
  /** The cookie that carries the anti-forgery secret (a `Set-Cookie` value). */
  readonly setCookie: string;
  /** Self-asserted by the client: never shown as verified. */
  readonly clientName: string;
  readonly clientType: 'registered' | 'metadata_document';
  readonly clientId: string;
  /** Registered clients: the host of the `client_uri` the client supplied (self-asserted). */
  readonly clientWebsiteHost?: string;
  /** Metadata-document clients: the host that publishes the client's metadata document (its client_id). */
  readonly documentHost?: string;
  readonly scopes: readonly string[];
  readonly redirectUri: string;
}

const LOOPBACK_NAMES = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Where the authorization code goes, in words, with the warnings that apply. */
function recipient(redirectUri: string): { readonly who: string; readonly warnings: readonly string[] } {
  const url = new URL(redirectUri);
  const warnings: string[] = [];
  if (url.protocol === 'http:' || url.protocol === 'https:') {
    const loopback = LOOPBACK_NAMES.has(url.hostname) || /^127\./.test(url.hostname);
    if (loopback) {
      warnings.push(
        'The code goes to a program on this device (a loopback address), and any program on this device can listen there. Approve only if you just started this sign-in from an application on this device.',
      );
    }
    if (url.protocol === 'http:') {
      warnings.push('The code is sent over an unencrypted connection (http, not https).');
    }
    return { who: `<strong class="recipient-host">${escapeHtml(url.host)}</strong>`, warnings };
  }
  warnings.push(
    `Any application on this device can register the ${url.protocol} scheme. Approve only if you just started this sign-in from the application you expect.`,
  );
  return {
    who: `the application on this device that handles <strong class="recipient-host">${escapeHtml(url.protocol)}</strong> addresses`,
    warnings,
  };
}

/**
 * The consent screen. Every value is escaped. What the client says about itself (name, website) is labelled
 * as the client's claim; where the code goes (the redirect URI's host) is shown prominently, with warnings
 * for loopback, unencrypted and private-use-scheme redirect URIs.
 */
export function consentPage(input: ConsentPageInput): HandlerResult {
  const scopes =
    input.scopes.length === 0
      ? '<p>It asks for no specific permissions.</p>'
      : `<p>It asks for these permissions:</p>
<ul aria-label="Requested permissions">
${input.scopes.map((scope) => `<li><code>${escapeHtml(scope)}</code></li>`).join('\n')}
</ul>`;
  const website =
    input.clientWebsiteHost === undefined
      ? ''
      : `, and that its website is at <strong>${escapeHtml(input.clientWebsiteHost)}</strong>`;
  const identity =
    input.clientType === 'metadata_document' && input.documentHost !== undefined
      ? `<p>Its client ID is a metadata document published by <strong>${escapeHtml(input.documentHost)}</strong>: <code>${escapeHtml(input.clientId)}</code>.</p>`
      : '';
  const { who, warnings } = recipient(input.redirectUri);
  const warningList =
    warnings.length === 0
      ? ''
      : `<ul class="warnings" aria-label="Warnings">
${warnings.map((warning) => `<li>&#9888; ${escapeHtml(warning)}</li>`).join('\n')}
</ul>`;
  return htmlResult(
    200,
    page(
      'Authorize an application',
      `<h1>Allow an application to access your account?</h1>
<p>The client says it is <strong class="client-name">${escapeHtml(input.clientName)}</strong>${website}. The client supplied this itself; it has not been verified.</p>
${identity}
<section class="recipient" aria-label="Who receives the authorization code">
<p>After you approve, ${who} receives the authorization code.</p>
<p>Redirect address: <code>${escapeHtml(input.redirectUri)}</code></p>
${warningList}
</section>
${scopes}
<form method="post" action="${escapeHtml(input.action)}">
<input type="hidden" name="req" value="${escapeHtml(input.req)}">
<input type="hidden" name="csrf_token" value="${escapeHtml(input.csrfToken)}">
<div class="actions">
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>`,
    ),
    // Browsers apply form-action to the redirect that follows the POST, so the client's redirect target
    // must be allowed next to 'self'. `same-origin` referrers make the form POST carry the real `Origin`
    // (with `no-referrer` browsers send `Origin: null`), and still give the client no Referer.
    {
      'content-security-policy': `default-src 'none'; style-src 'unsafe-inline'; form-action 'self' ${formActionSource(input.redirectUri)}; frame-ancestors 'none'`,
      'referrer-policy': 'same-origin',
      'set-cookie': input.setCookie,
    },
  );
}

function formActionSource(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.protocol === 'http:' || url.protocol === 'https:'
    ? `${url.protocol}//${url.host}`
    : url.protocol;
}
