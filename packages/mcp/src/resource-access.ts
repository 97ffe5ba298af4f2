import type { Logger } from '@keyhold/core';
import { StorageUnavailableError } from '@keyhold/core';
import { toResponse } from '@keyhold/internal';
import type { ProtectedResource } from '@keyhold/oauth-core';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { storageUnavailableResponse } from './outage.js';
import type { Principal } from './tool-module.js';

/** The outcome of authenticating one request: who it acts for, or the resource's ready answer. */
export type Authentication =
  | {
      readonly ok: true;
      readonly authInfo: AuthInfo;
      readonly principal: Principal;
      /** The resource's current DPoP nonce, for the answer's `DPoP-Nonce` when the client's is older. */
      readonly dpopNonce?: string;
    }
  | { readonly ok: false; readonly response: Response };

/**
 * Authenticates a request with its resource's bearer policy (`@keyhold/oauth-core`'s bearer.ts): the
 * challenge, the 404 of an unknown tenant and the 503 of an outage come back ready to send.
 */
export async function authenticate(
  resource: ProtectedResource,
  request: Request,
  logger: Logger,
): Promise<Authentication> {
  // The method and proof travel with the token: `Authorization: DPoP` is checked against them (RFC 9449 §7).
  const access = await resource.verify(request.headers.get('authorization') ?? undefined, {
    method: request.method,
    dpop: request.headers.get('dpop') ?? undefined,
  });
  if (!access.ok && access.result.status === 503) {
    // oauth-core logged the outage; the answer speaks JSON-RPC like every other answer of the endpoint.
    const retryAfterSeconds = Number(access.result.headers['retry-after'] ?? '1');
    return {
      ok: false,
      response: storageUnavailableResponse(
        new StorageUnavailableError('protected-resource', { retryAfterSeconds }),
        logger,
        'authentication',
      ),
    };
  }
  if (!access.ok) {
    logger.debug(
      { event: 'authentication_failed', tenant: resource.tenant, status: access.result.status },
      'mcp: request not authenticated',
    );
    return { ok: false, response: toResponse(access.result) };
  }
  const { claims } = access;
  return {
    ok: true,
    authInfo: access.authInfo as AuthInfo,
    principal: { userId: claims.sub, clientId: claims.client_id, tenantId: resource.tenant },
    ...(access.dpopNonce === undefined ? {} : { dpopNonce: access.dpopNonce }),
  };
}
