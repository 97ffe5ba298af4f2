import { type Clock, type Logger, normaliseAllowedHosts, optionValidators, originOf } from '@keyhold/core';
import { type Authentication, createAuthenticator, type McpAuthenticationOptions } from './authentication.js';
import { KeyholdMcpError } from './errors.js';
import { createHostOriginPolicy, type HostOriginPolicy } from './host-origin.js';

/** The options `createMcpEndpoint` and `createMcpRequestGate` share: what decides whether a request gets in. */
export interface RequestCheckOptions {
  readonly publicUrl: string | URL;
  readonly authentication: McpAuthenticationOptions;
  readonly allowedHosts?: readonly string[] | 'any';
  readonly allowedOrigins?: readonly string[];
}

/** The checks every request passes before MCP sees it, built from validated options. */
export interface RequestChecks {
  readonly publicUrl: URL;
  readonly hostOrigin: HostOriginPolicy;
  readonly authenticate: (request: Request) => Promise<Authentication>;
}

const check = optionValidators(KeyholdMcpError);

/**
 * Validates the shared options once (`ERR_INVALID_OPTIONS`) and builds the Host/Origin policy and the
 * authenticator, so the endpoint and the SDK v1 gate refuse the same misconfigurations the same way.
 */
export function createRequestChecks(
  options: RequestCheckOptions,
  clock: Clock,
  logger: Logger,
): RequestChecks {
  const publicUrl = check.absoluteUrl('publicUrl', options.publicUrl);
  if (typeof options.authentication?.verifier?.verifyAccessToken !== 'function') {
    throw check.invalid('authentication.verifier must have verifyAccessToken');
  }
  check.absoluteUrl('authentication.resourceMetadataUrl', options.authentication.resourceMetadataUrl);
  const { allowedHosts, allowedOrigins } = options;
  if (allowedHosts !== undefined && allowedHosts !== 'any') {
    // The Host matcher skips an entry it cannot parse, which would quietly refuse that host: say so here.
    try {
      normaliseAllowedHosts(allowedHosts);
    } catch (cause) {
      throw new KeyholdMcpError('ERR_INVALID_OPTIONS', `allowedHosts: ${(cause as Error).message}`, {
        cause,
      });
    }
  }
  const badOrigin = allowedOrigins?.find(
    (origin) => typeof origin !== 'string' || originOf(origin) === undefined,
  );
  if (badOrigin !== undefined) throw check.invalid(`allowedOrigins: not an origin: "${String(badOrigin)}"`);
  const hostOrigin = createHostOriginPolicy(publicUrl, allowedHosts, allowedOrigins);
  const authenticate = createAuthenticator(
    options.authentication,
    options.authentication.realm ?? publicUrl.origin,
    clock,
    logger,
  );
  return { publicUrl, hostOrigin, authenticate };
}
