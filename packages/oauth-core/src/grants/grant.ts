import type { HandlerRequest } from '@keyhold/core';
import type { VerifiedProof } from '../dpop/proof.js';
import type { ServerContext } from '../options.js';
import type { RequestEvent } from '../request-event.js';
import type { Tenant } from '../tenant.js';
import type { TokenResponseBody } from './issue-tokens.js';

/** What the token endpoint hands a grant: the parsed form of one request, for one tenant. */
export interface GrantInput {
  readonly context: ServerContext;
  readonly tenant: Tenant;
  readonly request: HandlerRequest;
  /** The form parameters, already checked for length; `resource` and `audience` may repeat (space-joined). */
  readonly params: Readonly<Record<string, string>>;
  /** The request's event, which the grant fills in (client, grant outcome) for metrics and logs. */
  readonly event: RequestEvent;
  /** The request's DPoP proof, already checked and spent (RFC 9449 §5); absent without one. */
  readonly proof?: VerifiedProof;
}

/** One grant type of the token endpoint (RFC 6749 §4, RFC 8693): a token response, or a thrown `OAuthError`. */
export type Grant = (input: GrantInput) => Promise<TokenResponseBody>;
