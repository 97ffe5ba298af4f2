import { escapeHtml } from '@keyhold/internal';
import { fill, neutralised, shown } from './page-text.js';
import { htmlDocument } from './responses.js';

/**
 * Where the authorization code goes after the user approves, as data a page can put in words.
 * `web`: an https (or plain http) host; `loopback`: a program on this device; `app`: whatever application
 * registered a private-use URI scheme (`cursor:`, `vscode:`).
 */
export type ConsentRecipient =
  | { readonly kind: 'web'; readonly host: string; readonly unencrypted: boolean }
  | { readonly kind: 'loopback'; readonly host: string; readonly unencrypted: boolean }
  | { readonly kind: 'app'; readonly scheme: string };

/**
 * What a consent screen has to show: who asks (self-asserted, never verified), for which scopes, and where
 * the code goes. The same data reaches a host's own renderer and {@link ConsentRequest}. What the client
 * supplied (name, redirect URI, client id) is given as stored: a renderer of its own must escape it and
 * neutralise control and bidirectional-formatting characters, as {@link renderConsentPage} does.
 *
 * @example
 * ```ts
 * const line = (view: ConsentDetails) => `${view.client.name} asks for ${view.scopes.join(', ')}`;
 * ```
 */
export interface ConsentDetails {
  readonly tenant: string;
  /** The service the person is signed in to: the tenant's `displayName`, else its slug. */
  readonly serviceName: string;
  /**
   * The signed-in person: the host's user id, and the `name` claim when the server has a `userClaims` hook
   * that gives one.
   */
  readonly user: { readonly id: string; readonly name?: string };
  /** The pending authorization's id (`req`). */
  readonly requestId: string;
  readonly client: {
    readonly id: string;
    /** Self-asserted by the client. */
    readonly name: string;
    readonly type: 'registered' | 'metadata_document';
    /** Registered clients: the host of the `client_uri` they supplied (self-asserted). */
    readonly websiteHost?: string;
    /** Metadata-document clients: the host that publishes the document (their client_id). */
    readonly documentHost?: string;
  };
  readonly scopes: readonly string[];
  /**
   * The tenant's plain words for its scopes (`TenantConfig.scopeDescriptions`). The built-in page falls back
   * to the built-in words of {@link ConsentStrings} (`openid`, `profile`, `email`, `offline_access`,
   * `mcp:tools`), then to the raw name.
   */
  readonly scopeDescriptions: Readonly<Record<string, string>>;
  readonly redirectUri: string;
  readonly recipient: ConsentRecipient;
  /** The tenant's connected-apps page, where the person can revoke later; absent when the server serves none. */
  readonly connectedAppsUrl?: string;
}

/**
 * A consent screen to render: {@link ConsentDetails} plus the form the built-in `POST /consent` route
 * accepts. A renderer must post every field of `form.fields` unchanged, plus `decision` = `approve` or
 * `deny`; the server sets the anti-forgery cookie and the security headers itself.
 *
 * @example
 * ```ts
 * const render = (view: ConsentView) =>
 *   `<form method="post" action="${view.form.action}">…</form>`;
 * ```
 */
export interface ConsentView extends ConsentDetails {
  readonly form: {
    readonly action: string;
    readonly fields: { readonly req: string; readonly csrf_token: string };
    readonly decisionField: 'decision';
    readonly approveValue: 'approve';
    readonly denyValue: 'deny';
  };
}

/**
 * Every sentence of the built-in consent page. `{name}`-style placeholders are filled with escaped values;
 * the strings themselves are escaped too, so they are text, never markup.
 *
 * @example
 * ```ts
 * const german: Partial<ConsentStrings> = { lang: 'de', approve: 'Erlauben', deny: 'Ablehnen' };
 * ```
 */
export interface ConsentStrings {
  readonly lang: string;
  /** Placeholder `{service}`. */
  readonly title: string;
  /**
   * Placeholders `{service}` and `{name}` (the client's self-asserted name: the default leaves it to
   * `clientClaim`, which labels it as a claim, rather than put an unverified name in the heading).
   */
  readonly heading: string;
  /** Placeholders `{service}`, `{user}`. */
  readonly signedInAs: string;
  /** Placeholders `{name}`, `{website}` (empty, or `clientWebsite` filled in). */
  readonly clientClaim: string;
  /** Placeholder `{host}`. */
  readonly clientWebsite: string;
  /** Placeholders `{host}`, `{clientId}`. */
  readonly documentIdentity: string;
  /** Placeholder `{host}`. */
  readonly recipientWeb: string;
  /** Placeholder `{scheme}`. */
  readonly recipientApp: string;
  /** Placeholder `{uri}`. */
  readonly redirectAddress: string;
  /**
   * The one note for a redirect to a program on this device (loopback, http or https), instead of separate
   * loopback and unencrypted warnings: the code never leaves the device. Placeholder `{host}`.
   */
  readonly noteThisDevice: string;
  readonly warningUnencrypted: string;
  /** Placeholder `{scheme}`. */
  readonly warningScheme: string;
  readonly scopesIntro: string;
  readonly noScopes: string;
  /** Built-in plain words for common scopes, used when the tenant gives none. */
  readonly scopeOpenid: string;
  readonly scopeProfile: string;
  readonly scopeEmail: string;
  readonly scopeOfflineAccess: string;
  readonly scopeMcpTools: string;
  /** The small print under a described scope. Placeholder `{scope}`. */
  readonly scopeRawName: string;
  readonly approve: string;
  readonly deny: string;
  /** Shown when the server serves a connected-apps page. Placeholder `{link}` (`connectedAppsLink`, linked). */
  readonly revokeLater: string;
  readonly connectedAppsLink: string;
  /** Accessible names of the lists and the recipient section. */
  readonly scopesLabel: string;
  readonly warningsLabel: string;
  readonly recipientLabel: string;
}

/** The built-in English strings. */
export const DEFAULT_CONSENT_STRINGS: ConsentStrings = Object.freeze({
  lang: 'en',
  title: 'Allow access to {service}',
  heading: 'Allow an application to use your {service} account?',
  signedInAs: 'You are signed in to {service} as {user}.',
  clientClaim:
    'The client says it is {name}{website}. The client supplied this itself; it has not been verified.',
  clientWebsite: ', and that its website is at {host}',
  documentIdentity: 'Its client ID is a metadata document published by {host}: {clientId}.',
  recipientWeb: 'After you approve, {host} receives the authorization code.',
  recipientApp:
    'After you approve, the application on this device that handles {scheme} addresses receives the authorization code.',
  redirectAddress: 'Redirect address: {uri}',
  noteThisDevice:
    'The code goes to an application on this device ({host}) and never leaves it. Any program on this device could listen there, so approve only if you just started this sign-in from an application on this device.',
  warningUnencrypted: 'The code is sent over an unencrypted connection (http, not https).',
  warningScheme:
    'Any application on this device can register the {scheme} scheme. Approve only if you just started this sign-in from the application you expect.',
  scopesIntro: 'If you allow it, it can:',
  noScopes: 'It asks for no specific permissions.',
  scopeOpenid: 'confirm who you are',
  scopeProfile: 'see your name and profile',
  scopeEmail: 'see your email address',
  scopeOfflineAccess: 'stay connected when you are away',
  scopeMcpTools: 'use the tools of this service on your behalf',
  scopeRawName: 'permission {scope}',
  approve: 'Allow',
  deny: 'Deny',
  revokeLater: 'You can disconnect it at any time on {link}.',
  connectedAppsLink: 'your connected apps page',
  scopesLabel: 'Requested permissions',
  warningsLabel: 'Warnings',
  recipientLabel: 'Who receives the authorization code',
});

const BUILT_IN_SCOPE_WORDS: Readonly<Record<string, keyof ConsentStrings>> = Object.freeze({
  openid: 'scopeOpenid',
  profile: 'scopeProfile',
  email: 'scopeEmail',
  offline_access: 'scopeOfflineAccess',
  'mcp:tools': 'scopeMcpTools',
});

/**
 * The built-in plain words of the common scopes, as `strings` words them: what a page falls back to when
 * the tenant does not describe a scope.
 */
export function builtInScopeWords(strings: ConsentStrings): Record<string, string> {
  const words: Record<string, string> = {};
  for (const [scope, key] of Object.entries(BUILT_IN_SCOPE_WORDS)) words[scope] = strings[key];
  return words;
}

/** A scope in plain words: the tenant's description, else the built-in one, else undefined. */
function scopeWords(view: ConsentView, strings: ConsentStrings, scope: string): string | undefined {
  const own = Object.hasOwn(view.scopeDescriptions, scope) ? view.scopeDescriptions[scope] : undefined;
  if (typeof own === 'string' && own !== '') return own;
  const key = Object.hasOwn(BUILT_IN_SCOPE_WORDS, scope) ? BUILT_IN_SCOPE_WORDS[scope] : undefined;
  return key === undefined ? undefined : strings[key];
}

const LOOPBACK_NAMES = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Classifies a redirect URI for the consent screen. */
export function consentRecipient(redirectUri: string): ConsentRecipient {
  const url = new URL(redirectUri);
  if (url.protocol === 'http:' || url.protocol === 'https:') {
    const loopback = LOOPBACK_NAMES.has(url.hostname) || /^127\./.test(url.hostname);
    return { kind: loopback ? 'loopback' : 'web', host: url.host, unencrypted: url.protocol === 'http:' };
  }
  return { kind: 'app', scheme: url.protocol };
}

/**
 * The built-in consent page as a whole HTML document. Every value is escaped, and in what the client supplied
 * (name, hosts, client id, redirect URI, scopes) each control or bidirectional-formatting character is shown
 * as U+FFFD, so no value can reorder the text around it. What the client says about
 * itself is labelled as its claim; the page names the service (the tenant's display name) and the signed-in
 * person, describes each scope in plain words with its raw name in small print, and shows where the code goes:
 * one note for a program on this device (loopback), warnings for unencrypted web and private-use-scheme
 * redirect URIs.
 *
 * @example
 * ```ts
 * const html = renderConsentPage(view, { ...DEFAULT_CONSENT_STRINGS, approve: 'Continue' });
 * ```
 */
export function renderConsentPage(
  view: ConsentView,
  strings: ConsentStrings = DEFAULT_CONSENT_STRINGS,
): string {
  const { client, recipient } = view;
  const service = `<strong class="service-name">${shown(view.serviceName)}</strong>`;
  const scopes =
    view.scopes.length === 0
      ? `<p>${fill(strings.noScopes)}</p>`
      : `<p>${fill(strings.scopesIntro)}</p>
<ul class="scopes" aria-label="${escapeHtml(strings.scopesLabel)}">
${view.scopes
  .map((scope) => {
    const words = scopeWords(view, strings, scope);
    return words === undefined
      ? `<li><code>${shown(scope)}</code></li>`
      : `<li>${shown(words)}<br><small class="scope-name">${fill(strings.scopeRawName, { scope: `<code>${shown(scope)}</code>` })}</small></li>`;
  })
  .join('\n')}
</ul>`;
  const user = `<strong class="user-name">${shown(view.user.name ?? view.user.id)}</strong>`;
  const website =
    client.websiteHost === undefined
      ? ''
      : fill(strings.clientWebsite, { host: `<strong>${shown(client.websiteHost)}</strong>` });
  const identity =
    client.type === 'metadata_document' && client.documentHost !== undefined
      ? `<p>${fill(strings.documentIdentity, {
          host: `<strong>${shown(client.documentHost)}</strong>`,
          clientId: `<code>${shown(client.id)}</code>`,
        })}</p>`
      : '';
  const warnings: string[] = [];
  let note = '';
  let who: string;
  if (recipient.kind === 'app') {
    warnings.push(fill(strings.warningScheme, { scheme: shown(recipient.scheme) }));
    who = fill(strings.recipientApp, {
      scheme: `<strong class="recipient-host">${shown(recipient.scheme)}</strong>`,
    });
  } else {
    // A desktop client on this device: one note, not a loopback and an http warning for the same fact.
    if (recipient.kind === 'loopback') {
      note = `<p class="note">${fill(strings.noteThisDevice, { host: shown(recipient.host) })}</p>`;
    } else if (recipient.unencrypted) {
      warnings.push(fill(strings.warningUnencrypted));
    }
    who = fill(strings.recipientWeb, {
      host: `<strong class="recipient-host">${shown(recipient.host)}</strong>`,
    });
  }
  const warningList =
    warnings.length === 0
      ? ''
      : `<ul class="warnings" aria-label="${escapeHtml(strings.warningsLabel)}">
${warnings.map((warning) => `<li>&#9888; ${warning}</li>`).join('\n')}
</ul>`;
  const name = `<strong class="client-name">${shown(client.name)}</strong>`;
  return htmlDocument(
    strings.title.replaceAll('{service}', neutralised(view.serviceName)),
    `<h1>${fill(strings.heading, { name, service })}</h1>
<p class="signed-in">${fill(strings.signedInAs, { service, user })}</p>
<p>${fill(strings.clientClaim, { name, website })}</p>
${identity}
${scopes}
<section class="recipient" aria-label="${escapeHtml(strings.recipientLabel)}">
<p>${who}</p>
<p>${fill(strings.redirectAddress, { uri: `<code>${shown(view.redirectUri)}</code>` })}</p>
${note}${warningList}
</section>
<form method="post" action="${escapeHtml(view.form.action)}">
<input type="hidden" name="req" value="${escapeHtml(view.form.fields.req)}">
<input type="hidden" name="csrf_token" value="${escapeHtml(view.form.fields.csrf_token)}">
<div class="actions">
<button type="submit" name="decision" value="approve">${escapeHtml(strings.approve)}</button>
<button type="submit" name="decision" value="deny">${escapeHtml(strings.deny)}</button>
</div>
</form>${
      view.connectedAppsUrl === undefined
        ? ''
        : `\n<p class="revoke-later"><small>${fill(strings.revokeLater, {
            link: `<a href="${escapeHtml(view.connectedAppsUrl)}">${escapeHtml(strings.connectedAppsLink)}</a>`,
          })}</small></p>`
    }`,
    strings.lang,
  );
}

/** The `form-action` CSP source of a redirect URI: browsers apply it to the redirect after the POST. */
export function formActionSource(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.protocol === 'http:' || url.protocol === 'https:'
    ? `${url.protocol}//${url.host}`
    : url.protocol;
}
