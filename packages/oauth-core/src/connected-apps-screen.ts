import { escapeHtml } from '@keyhold/internal';
import { fill, neutralised, shown } from './page-text.js';
import { htmlDocument } from './responses.js';
import type { ClientType, GrantKind } from './storage.js';

/**
 * The connected-apps page to render (`{issuer}/connected-apps`): the signed-in person's active grants, each
 * with its client, what it may do and its times, and the revoke form the built-in `POST` route accepts. A
 * renderer must post `form.fields` unchanged plus `grant_id` (`form.grantField`) = the grant's `grantId`;
 * the server sets the anti-forgery cookie and the security headers itself. Client names are self-asserted:
 * a renderer of its own must escape them and neutralise control and bidirectional-formatting characters.
 *
 * @example
 * ```ts
 * const render = (view: ConnectedAppsView) =>
 *   view.grants.map((grant) => `${grant.client.name}: ${grant.scopes.join(', ')}`).join('\n');
 * ```
 */
export interface ConnectedAppsView {
  readonly tenant: string;
  /** The tenant's `displayName`, else its slug. */
  readonly serviceName: string;
  /** The signed-in person: the host's user id, and the `name` claim when `userClaims` gives one. */
  readonly user: { readonly id: string; readonly name?: string };
  /** Active grants, oldest id first (at most 100). */
  readonly grants: readonly {
    readonly grantId: string;
    readonly client: {
      readonly id: string;
      /**
       * Registered clients: the self-asserted `client_name` (else the id); metadata-document clients: the
       * host publishing the document (the document is not fetched to list it).
       */
      readonly name: string;
      readonly type: ClientType;
    };
    readonly kind: GrantKind;
    readonly scopes: readonly string[];
    /** Whether it holds a refresh token: access that lasts until revoked. */
    readonly offlineAccess: boolean;
    /** Epoch ms. */
    readonly createdAt: number;
    /** Epoch ms. */
    readonly lastUsedAt: number;
  }[];
  /**
   * Plain words per scope: the tenant's `scopeDescriptions` over the consent page's built-in words (the
   * consent strings in force).
   */
  readonly scopeDescriptions: Readonly<Record<string, string>>;
  /** What the last revoke did (after the POST's redirect): `revoked`, or `not_found` for unknown and foreign ids alike. */
  readonly notice?: 'revoked' | 'not_found';
  readonly form: {
    readonly action: string;
    readonly fields: { readonly csrf_token: string };
    readonly grantField: 'grant_id';
  };
}

/**
 * Every sentence of the built-in connected-apps page (the option `connectedApps.strings` replaces any of
 * them). `{name}`-style placeholders are filled with escaped values; the strings are escaped too.
 *
 * @example
 * ```ts
 * const german: Partial<ConnectedAppsStrings> = { lang: 'de', revoke: 'Trennen' };
 * ```
 */
export interface ConnectedAppsStrings {
  readonly lang: string;
  /** Placeholder `{service}`. */
  readonly title: string;
  /** Placeholder `{service}`. */
  readonly heading: string;
  /** Placeholders `{service}`, `{user}`. */
  readonly signedInAs: string;
  readonly intro: string;
  /** The empty state. */
  readonly noGrants: string;
  readonly noticeRevoked: string;
  readonly noticeNotFound: string;
  /** Placeholder `{clientId}`. */
  readonly clientIdLine: string;
  readonly kindAuthorizationCode: string;
  readonly kindClientCredentials: string;
  readonly scopesIntro: string;
  readonly noScopes: string;
  /** The small print under a described scope. Placeholder `{scope}`. */
  readonly scopeRawName: string;
  readonly offlineAccess: string;
  /** Placeholder `{time}`. */
  readonly created: string;
  /** Placeholder `{time}`. */
  readonly lastUsed: string;
  readonly revoke: string;
  readonly grantsLabel: string;
}

/** The built-in English strings. */
export const DEFAULT_CONNECTED_APPS_STRINGS: ConnectedAppsStrings = Object.freeze({
  lang: 'en',
  title: 'Connected apps – {service}',
  heading: 'Apps connected to your {service} account',
  signedInAs: 'You are signed in to {service} as {user}.',
  intro:
    'These applications may act for you. Revoke one to stop it at once: its access ends at its next request.',
  noGrants: 'No application is connected to your account.',
  noticeRevoked: 'The application was disconnected. Its access has ended.',
  noticeNotFound: 'That connection was not found. It may have been revoked already.',
  clientIdLine: 'Client ID: {clientId}',
  kindAuthorizationCode: 'You allowed it to act for you',
  kindClientCredentials: 'Acts as itself',
  scopesIntro: 'It can:',
  noScopes: 'It has no specific permissions.',
  scopeRawName: 'permission {scope}',
  offlineAccess: 'Lasting access: it stays connected when you are away, until you revoke it.',
  created: 'Connected {time}',
  lastUsed: 'Last used {time}',
  revoke: 'Revoke',
  grantsLabel: 'Connected apps',
});

/** An epoch-ms time as `2026-03-01 12:00 UTC`: the same for every reader, whatever the server's zone. */
function timeText(epochMs: number): string {
  const iso = new Date(epochMs).toISOString();
  return `<time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC</time>`;
}

/**
 * The built-in connected-apps page as a whole HTML document. Every value is escaped; in what a client
 * supplied (name, id, scopes) each control or bidirectional-formatting character is shown as U+FFFD.
 *
 * @example
 * ```ts
 * const html = renderConnectedAppsPage(view, { ...DEFAULT_CONNECTED_APPS_STRINGS, revoke: 'Disconnect' });
 * ```
 */
export function renderConnectedAppsPage(
  view: ConnectedAppsView,
  strings: ConnectedAppsStrings = DEFAULT_CONNECTED_APPS_STRINGS,
): string {
  const service = `<strong class="service-name">${shown(view.serviceName)}</strong>`;
  const user = `<strong class="user-name">${shown(view.user.name ?? view.user.id)}</strong>`;
  const notice =
    view.notice === undefined
      ? ''
      : `<p class="note" role="status">${fill(view.notice === 'revoked' ? strings.noticeRevoked : strings.noticeNotFound)}</p>\n`;
  const words = (scope: string): string | undefined => {
    const own = Object.hasOwn(view.scopeDescriptions, scope) ? view.scopeDescriptions[scope] : undefined;
    return typeof own === 'string' && own !== '' ? own : undefined;
  };
  const grants =
    view.grants.length === 0
      ? `<p class="empty">${fill(strings.noGrants)}</p>`
      : `<ul class="grants" aria-label="${escapeHtml(strings.grantsLabel)}">
${view.grants
  .map((grant, index) => {
    const name = shown(grant.client.name);
    const scopes =
      grant.scopes.length === 0
        ? `<p>${fill(strings.noScopes)}</p>`
        : `<p>${fill(strings.scopesIntro)}</p>
<ul class="scopes">
${grant.scopes
  .map((scope) => {
    const plain = words(scope);
    return plain === undefined
      ? `<li><code>${shown(scope)}</code></li>`
      : `<li>${shown(plain)}<br><small class="scope-name">${fill(strings.scopeRawName, { scope: `<code>${shown(scope)}</code>` })}</small></li>`;
  })
  .join('\n')}
</ul>`;
    const kind =
      grant.kind === 'client_credentials' ? strings.kindClientCredentials : strings.kindAuthorizationCode;
    return `<li class="grant">
<h2 class="client-name" id="grant-${index}">${name}</h2>
<p><small class="client-id">${fill(strings.clientIdLine, { clientId: `<code>${shown(grant.client.id)}</code>` })}</small><br>
<span class="grant-kind">${fill(kind)}</span></p>
${scopes}
${grant.offlineAccess ? `<p class="note offline-access">${fill(strings.offlineAccess)}</p>\n` : ''}<p class="times">${fill(strings.created, { time: timeText(grant.createdAt) })}<br>${fill(strings.lastUsed, { time: timeText(grant.lastUsedAt) })}</p>
<form method="post" action="${escapeHtml(view.form.action)}">
<input type="hidden" name="csrf_token" value="${escapeHtml(view.form.fields.csrf_token)}">
<input type="hidden" name="${view.form.grantField}" value="${escapeHtml(grant.grantId)}">
<button type="submit" aria-describedby="grant-${index}">${escapeHtml(strings.revoke)}</button>
</form>
</li>`;
  })
  .join('\n')}
</ul>`;
  return htmlDocument(
    strings.title.replaceAll('{service}', neutralised(view.serviceName)),
    `<h1>${fill(strings.heading, { service })}</h1>
<p class="signed-in">${fill(strings.signedInAs, { service, user })}</p>
${notice}<p>${fill(strings.intro)}</p>
${grants}`,
    strings.lang,
  );
}
