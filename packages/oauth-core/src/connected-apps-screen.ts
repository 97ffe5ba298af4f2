import { escapeHtml } from '@keyhold/internal';
import { fill, neutralised, shown } from './page-text.js';
import { htmlDocument } from './responses.js';
import type { AuthEvent, ClientType, GrantKind } from './storage.js';

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
  /**
   * The person's own recent decisions from the timeline (`storage.events`), newest first, at most 20: each
   * with its time, category, reason code and the application it concerned when it named one (named as for
   * grants). `'unavailable'` when the timeline could not be read; absent when the server keeps none. Only
   * events whose `userId` is the signed-in person's; never a token, a grant id or an error text.
   */
  readonly activity?:
    | readonly {
        /** Epoch ms. */
        readonly at: number;
        readonly category: AuthEvent['category'];
        readonly reason: string;
        readonly client?: { readonly id: string; readonly name: string };
      }[]
    | 'unavailable';
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
  readonly activityHeading: string;
  readonly activityIntro: string;
  /** The empty state of the activity section. */
  readonly noActivity: string;
  /** When the timeline could not be read. */
  readonly activityUnavailable: string;
  /** Placeholder `{client}`: the application an event concerned. */
  readonly activityClient: string;
  /** The small print under an event's words. Placeholder `{reason}`: the raw reason code. */
  readonly activityReasonCode: string;
  /** The small print naming an event's client by its id (apps may share a name). Placeholder `{clientId}`. */
  readonly activityClientId: string;
  /** The words of an event whose reason (and each of its prefixes) has none in `activityReasons`. */
  readonly activityOther: string;
  /**
   * Plain words per reason code (README "Events and reason codes v1"), looked up by the whole code, then by
   * each shorter prefix (`token.rejected.expired`, `token.rejected`, `token`). A partial record replacing
   * some words keeps the built-in words of every other code.
   */
  readonly activityReasons: Readonly<Record<string, string>>;
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
  activityHeading: 'Recent activity',
  activityIntro: 'What happened with your account lately, newest first.',
  noActivity: 'Nothing has happened with your account lately.',
  activityUnavailable: 'Recent activity cannot be shown right now. Try again later.',
  activityClient: 'Application: {client}',
  activityReasonCode: 'reason {reason}',
  activityClientId: 'client {clientId}',
  activityOther: 'A decision about your account',
  activityReasons: Object.freeze({
    authorize: 'An application asked to act for you',
    'authorize.consent_shown': 'An application asked for your permission',
    'authorize.approved': 'An application you allowed before was let in',
    'authorize.login_redirect': 'You were asked to sign in',
    consent: 'You answered a permission request',
    'consent.page_shown': 'You were shown a permission request',
    'consent.approved': 'You allowed an application',
    'consent.denied': 'You refused an application',
    'consent.expired': 'A permission answer came too late and was refused',
    'consent.wrong_user': 'A permission answer from another account was refused',
    'consent.forged': 'A permission answer that could not be verified was refused',
    token: 'An application received access',
    'token.rejected': 'An application’s access was refused',
    introspection: 'An application’s access was checked',
    revocation: 'An application gave up its access',
    userinfo: 'An application read your profile',
    client: 'An application was checked',
    'client.blocked': 'A blocked application was refused',
    grant: 'A connection changed',
    'grant.created': 'An application was connected',
    'grant.used': 'An application used its connection',
    'grant.revoked': 'An application was disconnected',
    'grant.revoked.user': 'You disconnected an application',
    'grant.revoked.admin': 'An administrator disconnected an application',
    'grant.revoked.family_reuse': 'An application was disconnected: an old token of it came back',
    'grant.revoked.security': 'An application was disconnected for your safety',
    'grant.revoked.client_blocked': 'An application was disconnected: it was blocked',
    'grant.revoked.consent_deleted': 'An application was disconnected: your permission was removed',
    request: 'A request was refused',
    dpop: 'A request was refused: its proof of possession did not hold',
    jwt_bearer: 'An application’s sign-in assertion was refused',
    id_jag: 'An application’s sign-in assertion was refused',
    workload: 'A workload’s sign-in was refused',
    broker: 'Your connection to another service changed',
    'broker.login_started': 'A tool asked you to sign in to another service',
    'broker.login_completed': 'You connected another service for a tool',
    'broker.login_failed': 'Connecting another service failed',
    'broker.token_refreshed': 'Access to another service was renewed',
    'broker.refresh_failed': 'Access to another service could not be renewed',
    'broker.token_revoked': 'Another service ended its access',
    'broker.token_deleted': 'Access to another service was removed',
  }),
});

/** The words for `reason`: its own, else those of its longest prefix that has some. */
function reasonWords(reason: string, strings: ConnectedAppsStrings): string {
  const words = strings.activityReasons;
  for (let key = reason; key !== ''; key = key.includes('.') ? key.slice(0, key.lastIndexOf('.')) : '') {
    const found = Object.hasOwn(words, key) ? words[key] : undefined;
    if (typeof found === 'string' && found !== '') return found;
  }
  return strings.activityOther;
}

/** The activity section: absent without a timeline, a sentence when it is empty or unreadable. */
function activitySection(view: ConnectedAppsView, strings: ConnectedAppsStrings): string {
  if (view.activity === undefined) return '';
  const body =
    view.activity === 'unavailable'
      ? `<p class="note">${fill(strings.activityUnavailable)}</p>`
      : view.activity.length === 0
        ? `<p class="empty">${fill(strings.noActivity)}</p>`
        : `<p>${fill(strings.activityIntro)}</p>
<ul class="activity-list">
${view.activity
  .map(
    (entry) => `<li class="activity-entry" data-reason="${escapeHtml(entry.reason)}">
<span class="activity-what">${fill(reasonWords(entry.reason, strings))}</span><br>
${
  entry.client === undefined
    ? ''
    : `<span class="activity-client">${fill(strings.activityClient, { client: `<strong>${shown(entry.client.name)}</strong>` })}</span><br>
`
}<small class="activity-reason">${fill(strings.activityReasonCode, { reason: `<code>${shown(entry.reason)}</code>` })}${entry.client === undefined ? '' : ` · ${fill(strings.activityClientId, { clientId: `<code>${shown(entry.client.id)}</code>` })}`} · ${timeText(entry.at)}</small>
</li>`,
  )
  .join('\n')}
</ul>`;
  return `<section class="activity" aria-labelledby="activity-heading">
<h2 id="activity-heading">${fill(strings.activityHeading)}</h2>
${body}
</section>`;
}

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
${grants}
${activitySection(view, strings)}`,
    strings.lang,
  );
}
