import type { Logger } from '@keyhold/core';
import { normaliseAllowedHosts, optionValidators, originOf } from '@keyhold/internal';
import type { AuthorizationServer, ProtectedResource } from '@keyhold/oauth-core';
import { KeyholdMcpError } from './errors.js';
import { createHostOriginPolicy, type HostOriginPolicy } from './host-origin.js';
import { type Authentication, authenticate } from './resource-access.js';

/** The options `createMcpEndpoint` and `createMcpRequestGate` share: what decides whether a request gets in. */
export interface RequestCheckOptions {
  /** The one resource served (`server.protectedResource('demo')`). */
  readonly resource?: ProtectedResource;
  /** Serve every tenant's resource at `{baseUrl}/tenant/<slug>{resourcePath}`. */
  readonly authorizationServer?: AuthorizationServer;
  readonly allowedHosts?: readonly string[] | 'any';
  readonly allowedOrigins?: readonly string[];
}

/** What a path is to the endpoint: the resource itself, or its RFC 9728 metadata. */
export interface Located {
  readonly kind: 'resource' | 'metadata';
  readonly resource: ProtectedResource;
}

/** The checks every request passes before MCP sees it, built from validated options. */
export interface RequestChecks {
  /** The resource URL (one resource) or the authorization server's base: the default Host and Origin. */
  readonly publicUrl: URL;
  readonly hostOrigin: HostOriginPolicy;
  /** What a path is, or `undefined` when the endpoint does not serve it. */
  locate(pathname: string): Located | undefined;
  readonly authenticate: (resource: ProtectedResource, request: Request) => Promise<Authentication>;
}

const check = optionValidators(KeyholdMcpError);
const WELL_KNOWN = '/.well-known/oauth-protected-resource';
const TENANT_PATH = /\/tenant\/([^/]+)\//;
const MAX_CACHED_RESOURCES = 1024;

/**
 * Validates the shared options once (`ERR_INVALID_OPTIONS`) and builds the Host/Origin policy, the path
 * matcher and the authenticator, so the endpoint and the SDK v1 gate refuse the same misconfigurations
 * the same way.
 */
export function createRequestChecks(options: RequestCheckOptions, logger: Logger): RequestChecks {
  const { resource, authorizationServer } = options;
  if ((resource === undefined) === (authorizationServer === undefined)) {
    throw check.invalid(
      'give exactly one of resource (server.protectedResource(tenant)) and authorizationServer',
    );
  }
  if (resource !== undefined && (typeof resource.verify !== 'function' || typeof resource.url !== 'string')) {
    throw check.invalid('resource must be a ProtectedResource (server.protectedResource(tenant))');
  }
  if (authorizationServer !== undefined && typeof authorizationServer.protectedResource !== 'function') {
    throw check.invalid('authorizationServer must be an AuthorizationServer of @keyhold/oauth-core');
  }
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

  let locate: (pathname: string) => Located | undefined;
  let publicUrl: URL;
  if (resource !== undefined) {
    publicUrl = new URL(resource.url);
    const resourcePath = publicUrl.pathname;
    const metadataPath = new URL(resource.wellKnownUrl).pathname;
    const asResource: Located = { kind: 'resource', resource };
    const asMetadata: Located = { kind: 'metadata', resource };
    locate = (pathname) =>
      pathname === resourcePath ? asResource : pathname === metadataPath ? asMetadata : undefined;
  } else {
    const server = authorizationServer as AuthorizationServer;
    publicUrl = new URL(server.issuer('demo'));
    // The tenant comes from the path; the path must then be exactly that tenant's resource URL (base path
    // and resourcePath included), so nothing but the authorization server decides the layout.
    const resources = new Map<string, ProtectedResource>();
    const resourceOf = (slug: string): ProtectedResource => {
      let found = resources.get(slug);
      if (found === undefined) {
        found = server.protectedResource(slug);
        if (resources.size >= MAX_CACHED_RESOURCES) resources.clear();
        resources.set(slug, found);
      }
      return found;
    };
    locate = (pathname) => {
      const metadata = pathname.startsWith(`${WELL_KNOWN}/`);
      const path = metadata ? pathname.slice(WELL_KNOWN.length) : pathname;
      const segment = TENANT_PATH.exec(path)?.[1];
      if (segment === undefined) return undefined;
      let slug: string;
      try {
        slug = decodeURIComponent(segment);
      } catch {
        return undefined;
      }
      const found = resourceOf(slug);
      if (new URL(found.url).pathname !== path) return undefined;
      return { kind: metadata ? 'metadata' : 'resource', resource: found };
    };
  }
  const hostOrigin = createHostOriginPolicy(publicUrl, allowedHosts, allowedOrigins);
  return {
    publicUrl,
    hostOrigin,
    locate,
    authenticate: (found, request) => authenticate(found, request, logger),
  };
}
