import type { BearerRefusalReport } from '../bearer.js';
import type { ServerContext } from '../options.js';
import { catalogued } from './reasons.js';

/**
 * The report a protected resource hands the bearer policy: each refused token becomes one `resource`
 * event. Client, user and grant come from the token's claims only when its signature verified (a forged
 * token names nobody), and the token itself never goes into the event. A refusal naming nobody (a forged
 * or garbled token) is anonymous: bounded apart, so a flood of them keeps people's events in the timeline.
 */
export function resourceRefusals(context: ServerContext, tenantSlug: string): BearerRefusalReport {
  return (reason, claims) => {
    context.events.emit(
      {
        at: context.clock.now(),
        tenant: tenantSlug,
        category: 'resource',
        reason: catalogued(reason),
        status: reason === 'token.rejected.insufficient_scope' ? 403 : 401,
        errorCode: reason === 'token.rejected.insufficient_scope' ? 'insufficient_scope' : 'invalid_token',
        ...(typeof claims?.client_id === 'string' ? { clientId: claims.client_id } : {}),
        ...(typeof claims?.sub === 'string' ? { userId: claims.sub } : {}),
        ...(typeof claims?.grant_id === 'string' ? { grantId: claims.grant_id } : {}),
      },
      { anonymous: typeof claims?.sub !== 'string' && typeof claims?.client_id !== 'string' },
    );
  };
}
