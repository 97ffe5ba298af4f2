import { type AuthenticateClientOptions, authenticateClient, vouchedFor } from '../client-authentication.js';
import type { ResolvedClient } from '../clients.js';
import { requireProofOfBoundClient } from '../dpop/token-endpoint.js';
import { OAuthError } from '../errors.js';
import type { GrantInput } from './grant.js';

/** Which grant a client is authenticated for, and whether a public client may use it. */
export interface GrantClientOptions {
  /** The `grant_type` the client must be registered for. */
  readonly grantType: string;
  /** The grant as the refusal names it: "the client may not use {name}". */
  readonly name: string;
  readonly allowPublic: boolean;
  /** See `AuthenticateClientOptions.requireBasic` (the authorization_code grant's rule). */
  readonly requireBasic?: boolean;
  /** The event's reason when the client may not use the grant (the jwt-bearer catalogue names it). */
  readonly refusedReason?: string;
  /** See `AuthenticateClientOptions.resolved` (the code grant resolves the named client before the code). */
  readonly resolved?: AuthenticateClientOptions['resolved'];
}

/**
 * The opening every grant shares (jwt-bearer's workload pipeline only when a client presents credentials), in
 * this order: the client resolved, a DPoP proof required
 * of a client bound to one (before its credentials, so a refused request spends no client assertion: the
 * RFC 9449 §5.2 retry), the client authenticated (a use that renews a dynamic client), the grant type
 * allowed to the client. The event names the client's type as soon as it is known and its id once its
 * proof rule passed.
 */
export async function authenticateGrantClient(
  { context, tenant, request, params, event, proof }: GrantInput,
  options: GrantClientOptions,
): Promise<ResolvedClient> {
  const { client, method } = await authenticateClient(context, tenant, request, params, {
    allowPublic: options.allowPublic,
    ...(options.requireBasic === undefined ? {} : { requireBasic: options.requireBasic }),
    ...(options.resolved === undefined ? {} : { resolved: options.resolved }),
    renew: true,
    beforeCredentials: (named) => {
      event.client_type = named.clientType;
      requireProofOfBoundClient(named, proof, event);
    },
  });
  event.client_type = client.clientType;
  event.client_authenticated = vouchedFor(client, method);
  event.client_id = client.clientId;
  if (!client.grantTypes.includes(options.grantType)) {
    if (options.refusedReason !== undefined) event.reason = options.refusedReason;
    throw new OAuthError('unauthorized_client', `the client may not use ${options.name}`);
  }
  return client;
}
