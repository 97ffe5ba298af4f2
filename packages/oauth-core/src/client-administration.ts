import type { Clock, Logger } from '@keyhold/core';
import { silentLogger, systemClock } from '@keyhold/core';
import { constantTimeEqual, sha256Base64url } from '@keyhold/internal';
import { listLimit } from './admin-arguments.js';
import type { ClientMetadata } from './client-metadata.js';
import { checkClientMetadata } from './client-metadata.js';
import { hasControlCharacter } from './control-characters.js';
import { OAuthCoreError, OAuthError, optionCheck } from './errors.js';
import type { EventSink } from './events/emitter.js';
import { revokeGrantsWhere } from './grant-records.js';
import type { GrantRetention } from './grant-retention.js';
import { checkKnownClientId, checkKnownClientSecret } from './known-client.js';
import type { TenantConfig, TenantLookup } from './options.js';
import { newClientId, pooledRandomToken } from './random-pool.js';
import type {
  ApplicationType,
  AuthEvent,
  ClientJwks,
  ClientListOptions,
  ClientRecord,
  OAuthStorage,
  TokenEndpointAuthMethod,
} from './storage.js';
import { isTenantSlug } from './tenant.js';

/**
 * What the host gives {@link ClientAdministration.provision}. Defaults: a generated id and secret, confidential
 * (`client_secret_basic`), no redirect URIs, `response_types` following the grant types.
 *
 * @example
 * ```ts
 * const input: ClientProvisionInput = {
 *   clientId: 'reports',
 *   clientSecret: secrets.reportsClient,
 *   grantTypes: ['client_credentials'],
 *   scope: 'reports:read',
 * };
 * ```
 */
export interface ClientProvisionInput {
  /**
   * The client's id, when the host's configuration names it (`keyhold-host`): 1 to 128 characters of letters,
   * digits, `_`, `-`, `.` and `~`, not starting with `-`. Default: 16 random bytes, base64url.
   */
  readonly clientId?: string;
  /**
   * The client's secret, when the host's configuration holds it (a secret manager): 32 to 512 visible ASCII
   * characters, not repetitive (a floor against weak values, see `MIN_CLIENT_SECRET_BITS`); only with a
   * secret method (`client_secret_basic`, `client_secret_post`). Default: 32 random bytes, base64url.
   */
  readonly clientSecret?: string;
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
  /** RFC 9449 §5.2: every token request of the client must carry a DPoP proof. Default `false`. */
  readonly dpopBoundAccessTokens?: boolean;
}

/**
 * A client the host provisioned. `clientSecret` is shown once (only its SHA-256 is stored); absent for
 * clients without a secret (`none`, `private_key_jwt`).
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
 * Host-side management of registered clients (`server.clients`): what the `keyhold clients` command and admin
 * screens call. Provisioned clients may use machine grants (no registration policy applies: the host is the
 * authority) and never expire. Bad metadata, a malformed `clientId` or a weak `clientSecret` throws an
 * {@link OAuthError} (`invalid_client_metadata`, `invalid_redirect_uri`); an unknown tenant or a malformed
 * slug throws `invalid_request`.
 *
 * @example
 * ```ts
 * const created = await server.clients.provision('demo', { grantTypes: ['client_credentials'], scope: 'reports:read' });
 * for (const client of await server.clients.list('demo')) console.log(client.clientId, client.registration);
 * await server.clients.remove('demo', created.clientId);
 * ```
 */
export interface ClientAdministration {
  /**
   * Creates a client. A `clientId` the host chose is provisioned once: provisioning it again with the same
   * metadata and secret answers the stored client (so every instance of a host may provision its own
   * clients at start, concurrently); a client stored under that id with anything else throws
   * {@link OAuthCoreError} `ERR_CLIENT_EXISTS` (remove it first to replace it).
   */
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
  /**
   * Blocks a client id (a registered id, or a Client ID Metadata Document URL, which need not be known):
   * authorize shows a page naming it as blocked (no redirect), the token endpoint answers `invalid_grant`,
   * and every grant of it is revoked, so its access tokens are refused at the next request (401
   * `invalid_token`). Answers how many grants were revoked.
   *
   * @example
   * ```ts
   * const { revokedGrants } = await server.clients.block('demo', 'https://app.example/client.json');
   * ```
   */
  block(tenant: string, clientId: string): Promise<{ readonly revokedGrants: number }>;
  /**
   * Lifts a block; answers whether there was one. Grants the block revoked stay revoked: the user authorizes
   * the client again.
   */
  unblock(tenant: string, clientId: string): Promise<boolean>;
}

/** Options of {@link createClientAdministration}: what the server gives `server.clients`. */
export interface ClientAdministrationOptions {
  readonly storage: OAuthStorage;
  /** Default: the system clock. */
  readonly clock?: Clock;
  /** Default: silent. */
  readonly logger?: Logger;
  /** When given, unknown tenants are refused and scopes are checked against the tenant's offer. */
  readonly tenants?: TenantLookup;
  /** Where blocks, unblocks and the grants a block revokes are reported (the server's event sink). Default: nowhere. */
  readonly events?: Pick<EventSink, 'emit'>;
  /** When the grants a block revokes may be swept (the server's). Default: their rows are kept. */
  readonly grantRetention?: GrantRetention;
}

/** The sink of an administration built without the server's: its events go nowhere. */
const NO_EVENTS: Pick<EventSink, 'emit'> = { emit() {} };

/**
 * Creates the {@link ClientAdministration} over a storage: `server.clients`, built from the server's storage
 * (through its client cache), clock, logger and tenant lookup. Internal: hosts and the CLI use `server.clients`.
 */
export function createClientAdministration(options: ClientAdministrationOptions): ClientAdministration {
  if (typeof options?.storage?.clients?.list !== 'function') {
    throw optionCheck.invalid('storage with a clients.list method is required');
  }
  const { storage } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const events = options.events ?? NO_EVENTS;

  /** The `client` event of an administrator's block or unblock: the client id only, no user, no grant. */
  function clientEvent(tenant: string, reason: 'client.blocked' | 'client.unblocked'): AuthEvent {
    return { at: clock.now(), tenant, category: 'client', reason, status: 200 };
  }

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
        ...(input.dpopBoundAccessTokens === undefined
          ? {}
          : { dpopBoundAccessTokens: input.dpopBoundAccessTokens }),
      };
      const metadata = checkClientMetadata(draft, scopesSupported);
      const accepted = config?.tokenEndpointAuthMethods;
      if (accepted !== undefined && !accepted.includes(metadata.tokenEndpointAuthMethod)) {
        throw new OAuthError(
          'invalid_client_metadata',
          `token_endpoint_auth_method ${metadata.tokenEndpointAuthMethod} is not accepted on this tenant (it accepts ${accepted.join(', ')})`,
        );
      }
      const withSecret = usesSecret(metadata.tokenEndpointAuthMethod);
      if (input.clientSecret !== undefined && !withSecret) {
        throw new OAuthError(
          'invalid_client_metadata',
          `a client secret goes with client_secret_basic or client_secret_post, not ${metadata.tokenEndpointAuthMethod}`,
        );
      }
      const known = input.clientId !== undefined;
      const clientId = known ? checkKnownClientId(input.clientId) : newClientId();
      const clientSecret = withSecret
        ? input.clientSecret === undefined
          ? pooledRandomToken()
          : checkKnownClientSecret(input.clientSecret)
        : undefined;
      const record = clientRecord(metadata, {
        clientId,
        clientSecret,
        createdAt: clock.now(),
        registration: 'provisioned',
      });
      const provisioned = (stored: ClientRecord): ProvisionedClient => ({
        clientId,
        ...(clientSecret === undefined ? {} : { clientSecret }),
        record: stored,
      });
      // A chosen id may be taken: by this very client (another instance provisioning it at the same start, or
      // an earlier start), which is success, or by another one, which the host must resolve.
      const taken = (stored: ClientRecord): ProvisionedClient => {
        if (!sameClient(stored, record)) {
          throw new OAuthCoreError(
            'ERR_CLIENT_EXISTS',
            `tenant "${tenant}" already has a client "${clientId}" registered otherwise (remove it first to replace it)`,
          );
        }
        return provisioned(stored);
      };
      if (known) {
        const existing = await storage.clients.get(tenant, clientId);
        if (existing) return taken(existing);
      }
      try {
        await storage.clients.create(tenant, record);
      } catch (error) {
        // A create that lost a race to the same id: what won decides.
        const winner = known ? await storage.clients.get(tenant, clientId) : undefined;
        if (winner) return taken(winner);
        throw error;
      }
      logger.info({ tenant, clientId, grantTypes: metadata.grantTypes }, 'client provisioned');
      return provisioned(record);
    },
    async get(tenant, clientId) {
      if (!isTenantSlug(tenant)) throw new OAuthError('invalid_request', 'the tenant slug is malformed');
      return storage.clients.get(tenant, clientId);
    },
    async list(tenant, listOptions = {}) {
      if (!isTenantSlug(tenant)) throw new OAuthError('invalid_request', 'the tenant slug is malformed');
      return storage.clients.list(tenant, { ...listOptions, limit: listLimit(listOptions.limit) });
    },
    async remove(tenant, clientId) {
      if (!isTenantSlug(tenant)) throw new OAuthError('invalid_request', 'the tenant slug is malformed');
      const existing = await storage.clients.get(tenant, clientId);
      if (!existing) return false;
      await storage.clients.delete(tenant, clientId);
      logger.info({ tenant, clientId }, 'client removed');
      return true;
    },
    async block(tenant, clientId) {
      if (!isTenantSlug(tenant)) throw new OAuthError('invalid_request', 'the tenant slug is malformed');
      checkBlockableClientId(clientId);
      // The block first, then the grants: a token request racing it either sees the block or opened its
      // grant before the sweep below finds it (grant-records.ts opens before it checks).
      await storage.clientBlocks.block(tenant, { clientId, blockedAt: clock.now() });
      // The block's own event comes first, then one per grant it revoked (`grant.revoked.client_blocked`).
      events.emit({ ...clientEvent(tenant, 'client.blocked'), clientId });
      const revokedGrants = await revokeGrantsWhere(
        {
          storage,
          clock,
          logger,
          events,
          ...(options.grantRetention ? { grantRetention: options.grantRetention } : {}),
        },
        tenant,
        { clientId },
        'client_blocked',
      );
      logger.info({ event: 'client_blocked', tenant, clientId, revokedGrants }, 'client blocked');
      return { revokedGrants };
    },
    async unblock(tenant, clientId) {
      if (!isTenantSlug(tenant)) throw new OAuthError('invalid_request', 'the tenant slug is malformed');
      checkBlockableClientId(clientId);
      const lifted = await storage.clientBlocks.unblock(tenant, clientId);
      if (lifted) {
        logger.info({ event: 'client_unblocked', tenant, clientId }, 'client unblocked');
        events.emit({ ...clientEvent(tenant, 'client.unblocked'), clientId });
      }
      return lifted;
    },
  };
}

/** A client id worth a block record: what authorize would accept as one (bounded, no control characters). */
function checkBlockableClientId(clientId: string): void {
  if (
    typeof clientId !== 'string' ||
    clientId === '' ||
    clientId.length > 4096 ||
    hasControlCharacter(clientId)
  ) {
    throw new OAuthError('invalid_request', 'the client id must be 1 to 4096 printable characters');
  }
}

/**
 * Whether a stored client is the one a provisioning would store: the same secret (by its hash) and the same
 * registration, whatever its `createdAt`. Stores may hand back optional fields as absent or `undefined`, and
 * JSON members (a key set) in another order, so records are compared in a canonical form.
 */
function sameClient(stored: ClientRecord, wanted: ClientRecord): boolean {
  const { createdAt: _stored, clientSecretHash: storedHash, ...storedRest } = stored;
  const { createdAt: _wanted, clientSecretHash: wantedHash, ...wantedRest } = wanted;
  const secretsMatch =
    storedHash === undefined || wantedHash === undefined
      ? storedHash === wantedHash
      : constantTimeEqual(storedHash, wantedHash);
  return secretsMatch && canonical(storedRest) === canonical(wantedRest);
}

/** JSON with object members sorted and `undefined` members left out. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, member: unknown) =>
    member !== null && typeof member === 'object' && !Array.isArray(member)
      ? Object.fromEntries(
          Object.entries(member)
            .filter(([, entry]) => entry !== undefined)
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : member,
  );
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
    ...(metadata.dpopBoundAccessTokens === true ? { dpopBoundAccessTokens: true } : {}),
  };
}
