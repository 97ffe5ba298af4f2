import type { HandlerResult } from '@keyhold/core';
import { StorageUnavailableError } from '@keyhold/core';
import { jsonResult, storageUnavailableResult } from '@keyhold/internal';
import {
  checkBearer,
  type DpopRequest,
  presentedToken,
  presentsCredentials,
  requiredScopesFor,
} from './bearer.js';
import { wellKnownUrl } from './discovery-paths.js';
import { optionCheck } from './errors.js';
import { resourceRefusals } from './events/resource.js';
import { type ProtectedResourceMetadata, protectedResourceDocument } from './handlers/metadata.js';
import type { ServerContext } from './options.js';
import type { Tenant } from './tenant.js';
import { type AuthInfo, authInfoOf } from './token-verifier.js';
import type { AccessTokenClaims } from './tokens.js';

/**
 * Options of `server.protectedResource(tenant, options)`.
 *
 * @example
 * ```ts
 * const mcp = server.protectedResource('demo', { url: 'https://example.com/mcp' });
 * ```
 */
export interface ProtectedResourceOptions {
  /**
   * Where the resource lives, when not at the tenant's `{issuer}{resourcePath}`: an absolute http(s) URL
   * without query or fragment (say an existing `https://example.com/mcp`). The tenant then issues tokens for
   * it (RFC 8707 `resource`), and with no `resources` in its config it is the tenant's default audience.
   */
  readonly url?: string;
  /**
   * Whether tokens a client obtained for itself (client_credentials) are served. Default `false`: they get
   * 403 `invalid_token` with no scope hint.
   */
  readonly allowMachineSubjects?: boolean;
  /**
   * Serve DPoP-bound tokens only (RFC 9449 §7, RFC 9728 `dpop_bound_access_tokens_required`): a Bearer
   * token gets 401 `invalid_token`. Needs DPoP on at the authorization server. Default `false`.
   */
  readonly dpopBoundAccessTokensRequired?: boolean;
}

/**
 * The outcome of `ProtectedResource.verify`: the claims (and the MCP SDK-shaped `AuthInfo`), or a ready
 * answer to send as it is: the 401/403 challenge, 404 for an unknown tenant, 503 with `Retry-After` when
 * storage was unavailable (the token is not judged; the client keeps it).
 *
 * @example
 * ```ts
 * const access = await resource.verify(request.headers.get('authorization') ?? undefined);
 * if (!access.ok) return access.result;
 * access.claims.sub;
 * ```
 */
export type ResourceAccess =
  | {
      readonly ok: true;
      readonly claims: AccessTokenClaims;
      readonly authInfo: AuthInfo;
      /** The resource's current DPoP nonce for the answer's `DPoP-Nonce` header, when the client's is older (RFC 9449 §9). */
      readonly dpopNonce?: string;
    }
  | { readonly ok: false; readonly result: HandlerResult };

/**
 * A tenant's protected resource as its authorization server describes it: what a resource server needs
 * and nothing it must build by hand.
 *
 * @example
 * ```ts
 * const resource: ProtectedResource = server.protectedResource('demo');
 * const access = await resource.verify('Bearer eyJ…');
 * ```
 */
export interface ProtectedResource {
  /** The tenant slug. */
  readonly tenant: string;
  /** The resource URL: the audience of its tokens. */
  readonly url: string;
  /** Where its RFC 9728 metadata is served: the well-known suffix between the URL's origin and path. */
  readonly wellKnownUrl: string;
  /** The realm of its challenges (the tenant slug, as every challenge of the authorization server). */
  readonly realm: string;
  /** Whether tokens a client obtained for itself are served. */
  readonly allowMachineSubjects: boolean;
  /**
   * The RFC 9728 document; `undefined` for an unknown tenant. Throws `StorageUnavailableError` when the
   * tenant could not be looked up.
   */
  metadata(): Promise<ProtectedResourceMetadata | undefined>;
  /**
   * Applies the bearer policy to an `Authorization` header: signature, issuer, expiry, audience (this
   * URL), revocation, the DPoP binding (`Authorization: DPoP` with a proof of the bound key, checked against
   * `request`'s method and this URL; a bound token as Bearer is refused), the machine-subject rule, then the
   * tenant's `resourceScopes` (read per request, exact match). Never throws for a bad token nor for a
   * storage outage.
   */
  verify(authorization: string | undefined, request?: DpopRequest): Promise<ResourceAccess>;
}

/** What the authorization server lends its resources: the tenant lookup and its security log lines. */
export interface ResourceServices {
  readonly context: ServerContext;
  readonly resolveTenant: (slug: string) => Promise<Tenant | undefined>;
  readonly logBearerFailure: (tenantSlug: string, detail: string) => void;
  readonly logStorageOutage: (error: StorageUnavailableError, endpoint: string, tenantSlug: string) => void;
  /** Resource URLs the host placed, per tenant; shared with the tenant lookup (`context.resourceUrls`). */
  readonly placed: Map<string, string[]>;
}

function placedUrl(url: unknown): string {
  let parsed: URL;
  try {
    parsed = new URL(String(url));
  } catch {
    throw optionCheck.invalid('protectedResource: url must be an absolute URL');
  }
  if (
    typeof url !== 'string' ||
    !/^https?:$/.test(parsed.protocol) ||
    parsed.search !== '' ||
    parsed.hash !== ''
  ) {
    throw optionCheck.invalid('protectedResource: url must be an http(s) URL without query or fragment');
  }
  // The spelling tokens carry and requests are compared with: WHATWG-canonical, as RFC 8707 values are.
  return parsed.href;
}

/** `server.protectedResource(slug, options)`. */
export function createProtectedResource(
  services: ResourceServices,
  tenantSlug: string,
  options: ProtectedResourceOptions = {},
): ProtectedResource {
  const { context } = services;
  const url =
    options.url === undefined
      ? `${context.baseUrl}/tenant/${encodeURIComponent(tenantSlug)}${context.resourcePath}`
      : placedUrl(options.url);
  if (options.url !== undefined) {
    const urls = services.placed.get(tenantSlug) ?? [];
    if (!urls.includes(url)) services.placed.set(tenantSlug, [...urls, url]);
  }
  const metadataUrl = wellKnownUrl(url, 'oauth-protected-resource');
  const allowMachineSubjects = options.allowMachineSubjects === true;
  const dpopRequired = options.dpopBoundAccessTokensRequired === true;
  if (dpopRequired && context.dpop === undefined) {
    throw optionCheck.invalid(
      'protectedResource: dpopBoundAccessTokensRequired needs DPoP on at the authorization server (storage.onceStore, dpop not false)',
    );
  }
  return {
    tenant: tenantSlug,
    url,
    wellKnownUrl: metadataUrl,
    realm: tenantSlug,
    allowMachineSubjects,
    async metadata() {
      const tenant = await services.resolveTenant(tenantSlug);
      return tenant === undefined ? undefined : protectedResourceDocument(context, tenant, url, dpopRequired);
    },
    async verify(authorization, request) {
      try {
        const tenant = await services.resolveTenant(tenantSlug);
        if (tenant === undefined) {
          return {
            ok: false,
            result: jsonResult(
              404,
              { error: 'invalid_request', error_description: 'unknown tenant' },
              { 'cache-control': 'no-store' },
            ),
          };
        }
        // Required scopes are the tenant's, read now: tenants are looked up lazily and may change.
        const check = await checkBearer(
          context,
          tenant,
          authorization,
          {
            resource: url,
            resourceMetadataUrl: metadataUrl,
            requiredScopes: requiredScopesFor(tenant, {}),
            allowMachineSubjects,
            dpopRequired,
          },
          request,
          resourceRefusals(context, tenantSlug),
        );
        if (!check.ok) {
          if (presentsCredentials(authorization)) {
            services.logBearerFailure(tenantSlug, check.result.headers['www-authenticate'] ?? '');
          }
          return check;
        }
        const presented = presentedToken(authorization);
        const token = presented.kind === 'token' ? presented.token : '';
        return {
          ok: true,
          claims: check.claims,
          authInfo: authInfoOf(tenant, token, check.claims, url),
          ...(check.dpopNonce === undefined ? {} : { dpopNonce: check.dpopNonce }),
        };
      } catch (error) {
        // The token may well be good: a 401 would make the client drop it because the database blinked.
        if (!(error instanceof StorageUnavailableError)) throw error;
        services.logStorageOutage(error, 'bearer', tenantSlug);
        return { ok: false, result: storageUnavailableResult(error) };
      }
    },
  };
}
