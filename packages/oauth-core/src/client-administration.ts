import type { Clock, Logger } from '@keyhold/core';
import { silentLogger, systemClock } from '@keyhold/core';
import { sha256Base64url } from '@keyhold/internal';
import type { ClientMetadata } from './client-metadata.js';
import { checkClientMetadata } from './client-metadata.js';
import { OAuthError, optionCheck } from './errors.js';
import type { TenantConfig, TenantLookup } from './options.js';
import { newClientId, pooledRandomToken } from './random-pool.js';
import type {
  ApplicationType,
  ClientJwks,
  ClientListOptions,
  ClientRecord,
  OAuthStorage,
  TokenEndpointAuthMethod,
} from './storage.js';
import { isTenantSlug } from './tenant.js';

/**
 * What the host gives {@link ClientAdministration.provision}. Defaults: confidential
 * (`client_secret_basic`), no redirect URIs, `response_types` following the grant types.
 */
export interface ClientProvisionInput {
  readonly grantTypes: readonly string[];
  readonly redirectUris?: readonly string[];
  readonly responseTypes?: readonly string[];
  readonly tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
  readonly clientName?: string;
  readonly clientUri?: string;
  readonly logoUri?: string;
  readonly scope?: string;
  /** The exact audiences the client may ask a token exchange for; required for token exchange to work. */
  readonly tokenExchangeAudiences?: readonly string[];
  /** `private_key_jwt` clients: where their public keys are published (https); exclusive with `jwks`. */
  readonly jwksUri?: string;
  /** `private_key_jwt` clients: their public keys by value; exclusive with `jwksUri`. */
  readonly jwks?: ClientJwks;
  /** `private_key_jwt` clients: the one algorithm they sign assertions with. Default: any accepted one. */
  readonly tokenEndpointAuthSigningAlg?: string;
  /** `web` or `native`; default: inferred from the redirect URIs. */
  readonly applicationType?: ApplicationType;
}

/**
 * A client the host provisioned. `clientSecret` is shown once (only its SHA-256 is stored); absent for
 * public clients.
 *
 * @example
 * ```ts
 * const { clientId, clientSecret } = await server.clients.provision('demo', { grantTypes: ['client_credentials'] });
 * ```
 */
export interface ProvisionedClient {
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly record: ClientRecord;
}

/**
 * Host-side management of registered clients: what the `keyhold clients` command and admin screens call.
 * Provisioned clients may use machine grants (no registration policy applies: the host is the
 * authority) and never expire. Bad metadata throws an {@link OAuthError} (`invalid_client_metadata`,
 * `invalid_redirect_uri`); an unknown tenant (when a {@link TenantLookup} was given) or a malformed slug
 * throws `invalid_request`.
 *
 * @example
 * ```ts
 * const created = await admin.provision('demo', { grantTypes: ['client_credentials'], scope: 'reports:read' });
 * for (const client of await admin.list('demo')) console.log(client.clientId, client.registration);
 * await admin.remove('demo', created.clientId);
 * ```
 */
export interface ClientAdministration {
  provision(tenant: string, input: ClientProvisionInput): Promise<ProvisionedClient>;
  /** The stored client, expired or not. */
  get(tenant: string, clientId: string): Promise<ClientRecord | undefined>;
  /** One page of the tenant's clients ordered by id (expired dynamic clients included until swept). */
  list(tenant: string, options?: ClientListOptions): Promise<readonly ClientRecord[]>;
  /**
   * Deletes the client; answers whether it existed. Its refresh tokens stop working at once (the client
   * is unknown); its access tokens run out within their lifetime.
   */
  remove(tenant: string, clientId: string): Promise<boolean>;
}

/**
 * Options of {@link createClientAdministration}: just the storage (and a clock) is enough, so a CLI can
 * open the store and call it without starting a server.
 *
 * @example
 * ```ts
 * const admin = createClientAdministration({ storage: createSqliteOAuthStorage(openSqliteDatabase(file)) });
 * ```
 */
export interface ClientAdministrationOptions {
  readonly storage: OAuthStorage;
  /** Default: the system clock. */
  readonly clock?: Clock;
  /** Default: silent. */
  readonly logger?: Logger;
  /** When given, unknown tenants are refused and scopes are checked against the tenant's offer. */
  readonly tenants?: TenantLookup;
}

const MAX_LIST_LIMIT = 1000;

/**
 * Creates the {@link ClientAdministration} over a storage. `server.clients` is the same object built from
 * the server's options.
 *
 * @example
 * ```ts
 * const admin = createClientAdministration({ storage, tenants });
 * const { clientId, clientSecret } = await admin.provision('demo', {
 *   grantTypes: ['urn:ietf:params:oauth:grant-type:token-exchange'],
 *   tokenExchangeAudiences: ['https://downstream.example/api'],
 * });
 * ```
 */
export function createClientAdministration(options: ClientAdministrationOptions): ClientAdministration {
  if (typeof options?.storage?.clients?.list !== 'function') {
    throw optionCheck.invalid('storage with a clients.list method is required');
  }
  const { storage } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;

  async function configOf(tenant: string): Promise<TenantConfig | undefined> {
    if (!isTenantSlug(tenant)) throw new OAuthError('invalid_request', 'the tenant slug is malformed');
    if (!options.tenants) return undefined;
    const config = await options.tenants.get(tenant);
    if (!config) throw new OAuthError('invalid_request', `unknown tenant "${tenant}"`, { status: 404 });
    return config;
  }

  return {
    async provision(tenant, input) {
      const config = await configOf(tenant);
      const scopesSupported = config?.scopesSupported;
      const grantTypes = input.grantTypes ?? [];
      const draft: ClientMetadata = {
        redirectUris: input.redirectUris ?? [],
        grantTypes,
        responseTypes: input.responseTypes ?? (grantTypes.includes('authorization_code') ? ['code'] : []),
        tokenEndpointAuthMethod: input.tokenEndpointAuthMethod ?? 'client_secret_basic',
        ...(input.clientName === undefined ? {} : { clientName: input.clientName }),
        ...(input.clientUri === undefined ? {} : { clientUri: input.clientUri }),
        ...(input.logoUri === undefined ? {} : { logoUri: input.logoUri }),
        ...(input.scope === undefined ? {} : { scope: input.scope }),
        ...(input.tokenExchangeAudiences === undefined
          ? {}
          : { tokenExchangeAudiences: input.tokenExchangeAudiences }),
        ...(input.jwksUri === undefined ? {} : { jwksUri: input.jwksUri }),
        ...(input.jwks === undefined ? {} : { jwks: input.jwks }),
        ...(input.tokenEndpointAuthSigningAlg === undefined
          ? {}
          : { tokenEndpointAuthSigningAlg: input.tokenEndpointAuthSigningAlg }),
        ...(input.applicationType === undefined ? {} : { applicationType: input.applicationType }),
      };
      const metadata = checkClientMetadata(draft, scopesSupported);
      const accepted = config?.tokenEndpointAuthMethods;
      if (accepted !== undefined && !accepted.includes(metadata.tokenEndpointAuthMethod)) {
        throw new OAuthError(
          'invalid_client_metadata',
          `token_endpoint_auth_method ${metadata.tokenEndpointAuthMethod} is not accepted on this tenant (it accepts ${accepted.join(', ')})`,
        );
      }
      const clientId = newClientId();
      const clientSecret = usesSecret(metadata.tokenEndpointAuthMethod) ? pooledRandomToken() : undefined;
      const record = clientRecord(metadata, {
        clientId,
        clientSecret,
        createdAt: clock.now(),
        registration: 'provisioned',
      });
      await storage.clients.create(tenant, record);
      logger.info({ tenant, clientId, grantTypes: metadata.grantTypes }, 'client provisioned');
      return { clientId, ...(clientSecret === undefined ? {} : { clientSecret }), record };
    },
    async get(tenant, clientId) {
      if (!isTenantSlug(tenant)) throw new OAuthError('invalid_request', 'the tenant slug is malformed');
      return storage.clients.get(tenant, clientId);
    },
    async list(tenant, listOptions = {}) {
      if (!isTenantSlug(tenant)) throw new OAuthError('invalid_request', 'the tenant slug is malformed');
      const limit = listOptions.limit ?? 100;
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
        throw new OAuthError('invalid_request', `limit must be a whole number from 1 to ${MAX_LIST_LIMIT}`);
      }
      return storage.clients.list(tenant, { ...listOptions, limit });
    },
    async remove(tenant, clientId) {
      if (!isTenantSlug(tenant)) throw new OAuthError('invalid_request', 'the tenant slug is malformed');
      const existing = await storage.clients.get(tenant, clientId);
      if (!existing) return false;
      await storage.clients.delete(tenant, clientId);
      logger.info({ tenant, clientId }, 'client removed');
      return true;
    },
  };
}

/** Whether clients of a method get a secret (those of `none` and `private_key_jwt` do not). */
export function usesSecret(method: TokenEndpointAuthMethod): boolean {
  return method === 'client_secret_basic' || method === 'client_secret_post';
}

/** Builds the stored record of a client from checked metadata. */
export function clientRecord(
  metadata: ClientMetadata,
  fields: {
    readonly clientId: string;
    readonly clientSecret: string | undefined;
    readonly createdAt: number;
    readonly registration: ClientRecord['registration'] & string;
    readonly expiresAt?: number;
  },
): ClientRecord {
  return {
    clientId: fields.clientId,
    ...(metadata.clientName === undefined ? {} : { clientName: metadata.clientName }),
    redirectUris: metadata.redirectUris,
    grantTypes: metadata.grantTypes,
    responseTypes: metadata.responseTypes,
    tokenEndpointAuthMethod: metadata.tokenEndpointAuthMethod,
    ...(fields.clientSecret === undefined ? {} : { clientSecretHash: sha256Base64url(fields.clientSecret) }),
    ...(metadata.scope === undefined ? {} : { scope: metadata.scope }),
    ...(metadata.clientUri === undefined ? {} : { clientUri: metadata.clientUri }),
    ...(metadata.logoUri === undefined ? {} : { logoUri: metadata.logoUri }),
    createdAt: fields.createdAt,
    registration: fields.registration,
    ...(fields.expiresAt === undefined ? {} : { expiresAt: fields.expiresAt }),
    ...(metadata.tokenExchangeAudiences === undefined
      ? {}
      : { tokenExchangeAudiences: metadata.tokenExchangeAudiences }),
    ...(metadata.jwksUri === undefined ? {} : { jwksUri: metadata.jwksUri }),
    ...(metadata.jwks === undefined ? {} : { jwks: metadata.jwks }),
    ...(metadata.tokenEndpointAuthSigningAlg === undefined
      ? {}
      : { tokenEndpointAuthSigningAlg: metadata.tokenEndpointAuthSigningAlg }),
    ...(metadata.applicationType === undefined ? {} : { applicationType: metadata.applicationType }),
  };
}
