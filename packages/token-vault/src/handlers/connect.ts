import type { Handler } from '@keyhold/internal';
import { isAllowedOrigin, originOf, parseQuery, redirectResult } from '@keyhold/internal';
import type { ResolvedBrokerOptions } from '../options.js';
import { page } from '../pages.js';
import { createPkcePair } from '../pkce.js';
import { createOpaqueState, STATE_MAX_AGE_MS, stateHash } from '../state.js';

/**
 * The connect step, where the elicitation URL points. It refuses a browser user other than the user who asked
 * (the MCP spec's phishing rule: a link forwarded to someone else must not attach their account to the
 * asker's session), then redirects to the provider with PKCE (S256) and an opaque, single-use state (32 random bytes; what the callback needs stays in the
 * pending authorization, stored under the state's SHA-256 for five minutes). A
 * request carrying an `Origin` other than the host's own (a cross-site fetch or form) is refused with 403.
 */
export function createConnectHandler(options: ResolvedBrokerOptions): Handler {
  const { storage, clock, logger, events } = options;
  const ownOrigin = originOf(options.connectUrl);
  return async (request) => {
    // Only GET: the step stores a pending authorization, which a HEAD must not do.
    if (request.method !== 'GET') {
      const refused = page(405, 'Method not allowed', 'Open this link in a browser.');
      return { ...refused, headers: { ...refused.headers, allow: 'GET' } };
    }
    // A browser sends Origin with a cross-site fetch or form: only the host's own pages may start this step
    // (a plain navigation, such as opening the link from the MCP client, carries none).
    const origin = request.headers.origin;
    if (origin !== undefined && (ownOrigin === undefined || !isAllowedOrigin(origin, [ownOrigin]))) {
      logger.warn({ event: 'connect_cross_origin' }, 'token-vault: cross-origin connect request refused');
      return page(
        403,
        'Request refused',
        'cross-origin request refused. Open the link directly in your browser.',
      );
    }
    const query = parseQuery(request.query);
    const elicitationId = query.ok ? query.params.elicitation_id : undefined;
    if (elicitationId === undefined) {
      return page(
        400,
        'Invalid authorization link',
        'The link is incomplete. Run the tool again for a new link.',
      );
    }
    const now = clock.now();
    const elicitation = await storage.pending.getElicitation(elicitationId, now);
    if (elicitation === undefined) {
      return page(
        404,
        'Authorization link expired',
        'This authorization link is unknown, already used or expired. Run the tool again for a new link.',
      );
    }
    if (request.userId === undefined) {
      return page(401, 'Sign in first', 'Sign in to this service in this browser, then open the link again.');
    }
    if (request.userId !== elicitation.userId) {
      logger.warn(
        {
          event: 'connect_user_mismatch',
          tenant: elicitation.tenantId,
          elicitationId,
          provider: elicitation.provider,
        },
        'token-vault: connect step opened by a different user',
      );
      events.emit({
        tenant: elicitation.tenantId,
        reason: 'broker.login_failed.wrong_user',
        status: 403,
        userId: elicitation.userId,
        provider: elicitation.provider,
        toolModuleId: elicitation.toolModuleId,
      });
      return page(
        403,
        'Wrong account',
        'This authorization link was created for another account. Sign in as the user who ran the tool, or run the tool yourself.',
      );
    }
    const provider = options.providers.get(elicitation.provider);
    if (provider === undefined) {
      return page(404, 'Unknown provider', 'The provider of this link is no longer configured.');
    }
    const pkce = createPkcePair();
    const state = createOpaqueState();
    await storage.pending.putAuthorization(
      {
        nonceHash: stateHash(state),
        elicitationId,
        tenantId: elicitation.tenantId,
        userId: elicitation.userId,
        toolModuleId: elicitation.toolModuleId,
        provider: elicitation.provider,
        scopes: elicitation.scopes,
        codeVerifier: pkce.codeVerifier,
        createdAt: now,
        // The five-minute limit: the callback's consume refuses the record from this instant on.
        expiresAt: now + STATE_MAX_AGE_MS,
      },
      options.maxPendingPerUser,
    );
    const url = new URL(provider.authorizationUrl);
    const scopes = [...new Set([...elicitation.scopes, ...provider.additionalScopes])];
    for (const [name, value] of Object.entries({
      ...provider.authorizationParams,
      response_type: 'code',
      client_id: provider.clientId,
      redirect_uri: options.callbackUrl,
      scope: scopes.join(' '),
      state,
      code_challenge: pkce.codeChallenge,
      code_challenge_method: pkce.codeChallengeMethod,
    })) {
      url.searchParams.set(name, value);
    }
    logger.debug(
      { tenant: elicitation.tenantId, elicitationId, provider: provider.id },
      'token-vault: redirecting to provider',
    );
    return redirectResult(url.href);
  };
}
