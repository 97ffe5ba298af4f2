import type { OnceStore } from '@keyhold/core';

/**
 * How a client authenticates at the token endpoint (RFC 7591 §2). `none` marks a public client;
 * `private_key_jwt` (RFC 7523 §2.2) signs a JWT assertion with a key from the client's `jwks_uri` or `jwks`.
 *
 * @example
 * ```ts
 * const isPublic = (method: TokenEndpointAuthMethod) => method === 'none';
 * ```
 */
export type TokenEndpointAuthMethod =
  | 'none'
  | 'client_secret_basic'
  | 'client_secret_post'
  | 'private_key_jwt';

/**
 * The OpenID Connect Dynamic Client Registration `application_type`: `web` clients redirect to https only;
 * `native` clients may also use loopback http and private-use URI schemes (RFC 8252).
 */
export type ApplicationType = 'web' | 'native';

/**
 * One public key of a client's JWK Set (RFC 7517), as the client published it. Private members are refused.
 */
export interface ClientJwk {
  readonly kty: string;
  readonly kid?: string;
  readonly alg?: string;
  readonly use?: string;
  readonly [member: string]: unknown;
}

/**
 * A client's JWK Set given by value (RFC 7591 `jwks`).
 */
export interface ClientJwks {
  readonly keys: readonly ClientJwk[];
}

/**
 * How a registered client came to exist: `dynamic` through RFC 7591 registration (expires when unused),
 * `provisioned` by the host through {@link ClientAdministration} (never expires).
 *
 * @example
 * ```ts
 * const expires = (record: ClientRecord) => (record.registration ?? 'dynamic') === 'dynamic';
 * ```
 */
export type ClientRegistration = 'dynamic' | 'provisioned';

/**
 * A registered client: created through dynamic registration (RFC 7591) or provisioned by the host.
 * Plain JSON: every field maps to a column.
 */
export interface ClientRecord {
  readonly clientId: string;
  readonly clientName?: string;
  readonly redirectUris: readonly string[];
  readonly grantTypes: readonly string[];
  readonly responseTypes: readonly string[];
  readonly tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  /** SHA-256 of the client secret, base64url; absent for public clients. */
  readonly clientSecretHash?: string;
  /** Space-separated scopes the client may ask for; absent means any scope the tenant offers. */
  readonly scope?: string;
  readonly clientUri?: string;
  readonly logoUri?: string;
  /** Epoch ms. */
  readonly createdAt: number;
  /** Absent on records written before this field existed; those read as `dynamic`. */
  readonly registration?: ClientRegistration;
  /**
   * Epoch ms after which the client is unknown (`invalid_client`): set on dynamic clients and pushed
   * forward when the client is used. Absent: the client never expires (provisioned clients).
   */
  readonly expiresAt?: number;
  /**
   * The exact RFC 8693 audiences (or resources) this client may ask a token exchange for. Absent: the
   * client may not use token exchange, whatever its grant types say.
   */
  readonly tokenExchangeAudiences?: readonly string[];
  /** `private_key_jwt` clients: where their public keys are published (https). Exclusive with `jwks`. */
  readonly jwksUri?: string;
  /** `private_key_jwt` clients: their public keys by value. Exclusive with `jwksUri`. */
  readonly jwks?: ClientJwks;
  /** `private_key_jwt` clients: the one assertion algorithm they use (`token_endpoint_auth_signing_alg`), if stated. */
  readonly tokenEndpointAuthSigningAlg?: string;
  /**
   * `web` or `native`. Absent on records written before this field existed; those read as what their
   * redirect URIs imply (see `inferApplicationType`).
   */
  readonly applicationType?: ApplicationType;
  /** RFC 9449 §5.2 `dpop_bound_access_tokens`: every token request of this client must carry a DPoP proof. */
  readonly dpopBoundAccessTokens?: boolean;
}

/**
 * A page of {@link ClientStore.list}: clients ordered by `clientId`, starting after `afterClientId`.
 *
 * @example
 * ```ts
 * const next = await store.clients.list('demo', { afterClientId: page.at(-1)?.clientId, limit: 100 });
 * ```
 */
export interface ClientListOptions {
  /** Start after this client id (exclusive); absent: from the first. */
  readonly afterClientId?: string;
  /** At most this many clients (default 100). */
  readonly limit?: number;
}

/**
 * Registered clients, per tenant.
 *
 * @example
 * ```ts
 * await store.clients.create('demo', client);
 * const found = await store.clients.get('demo', client.clientId);
 * ```
 */
export interface ClientStore {
  /** The client as stored, expired or not: the server compares `expiresAt` itself. */
  get(tenant: string, clientId: string): Promise<ClientRecord | undefined>;
  /** Inserts a new client; client ids are random, so a collision is an outage-class error. */
  create(tenant: string, client: ClientRecord): Promise<void>;
  delete(tenant: string, clientId: string): Promise<void>;
  /** One page of the tenant's clients (expired ones included until swept), ordered by `clientId`. */
  list(tenant: string, options?: ClientListOptions): Promise<readonly ClientRecord[]>;
  /** Sets the client's `expiresAt` (renewal on use); a no-op for an unknown client. */
  touch(tenant: string, clientId: string, expiresAt: number): Promise<void>;
  /**
   * How many of the tenant's clients have an `expiresAt` after `now`: the dynamically registered clients
   * still alive (provisioned clients never expire and are not counted). `POST /register` compares it with
   * `maxDynamicClients`, so it runs once per registration: one indexed count, never a page of records.
   */
  countDynamic(tenant: string, now: number): Promise<number>;
}

/**
 * Where a client came from: a Client ID Metadata Document (a `client_id` for which
 * `isMetadataDocumentClientId` holds) or the registry.
 */
export type ClientType = 'metadata_document' | 'registered';

/**
 * An issued authorization code, stored under the SHA-256 of the code.
 *
 * @example
 * ```ts
 * await store.authorizationCodes.save('demo', record);
 * ```
 */
export interface AuthorizationCodeRecord {
  readonly codeHash: string;
  readonly clientId: string;
  readonly clientType: ClientType;
  readonly userId: string;
  /** The redirect URI of the authorization request, pinned so a changed client document cannot move it. */
  readonly redirectUri: string;
  readonly codeChallenge: string;
  /** Space-separated granted scopes. */
  readonly scope: string;
  /** RFC 8707 resource indicators the grant is for. */
  readonly resources: readonly string[];
  readonly nonce?: string;
  /** Epoch ms at which the user authenticated or consented. */
  readonly authTime: number;
  readonly expiresAt: number;
  /**
   * The refresh-token family the token response will use, chosen when the code is issued so that a replay
   * of the code can revoke what its first redemption issued (OAuth 2.1 §4.1.3).
   */
  readonly familyId?: string;
  /** The `jti` of the access token the token response will carry, chosen when the code is issued. */
  readonly accessTokenJti?: string;
  /** Set when the code was redeemed; the record is kept until `expiresAt` so a replay is recognised. */
  readonly consumedAt?: number;
  /** The `dpop_jkt` of the authorization request (RFC 9449 §10): the code is redeemed only with that key. */
  readonly dpopJkt?: string;
}

/**
 * Authorization codes. `consume` marks the record consumed (kept until it expires, like refresh tokens)
 * and returns it as it was before, so a replay is recognised and can revoke what the code issued.
 *
 * @example
 * ```ts
 * const before = await store.authorizationCodes.consume('demo', sha256Base64url(code), now);
 * if (before?.consumedAt !== undefined) revokeWhatItIssued(before);
 * ```
 */
export interface AuthorizationCodeStore {
  save(tenant: string, record: AuthorizationCodeRecord): Promise<void>;
  /**
   * Atomically marks the code consumed at `now` and returns the record as it was before, whatever its
   * expiry: of any number of concurrent callers exactly one sees it without `consumedAt`; the others see
   * the first one's mark. Unknown (or swept) codes are `undefined`.
   */
  consume(tenant: string, codeHash: string, now: number): Promise<AuthorizationCodeRecord | undefined>;
}

/**
 * An authorization request waiting on the consent screen.
 *
 * @example
 * ```ts
 * await store.pendingAuthorizations.save('demo', pending);
 * ```
 */
export interface PendingAuthorizationRecord {
  readonly id: string;
  readonly userId: string;
  readonly clientId: string;
  readonly clientType: ClientType;
  /** What the consent screen shows: the client's name and the host it lives at. */
  readonly clientName: string;
  readonly clientHost: string;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly scope: string;
  readonly resources: readonly string[];
  readonly state?: string;
  readonly nonce?: string;
  readonly expiresAt: number;
  /** The `dpop_jkt` of the authorization request (RFC 9449 §10), carried to the code. */
  readonly dpopJkt?: string;
}

/**
 * Pending authorizations. `get` lets the server check who may decide before the record is taken.
 *
 * @example
 * ```ts
 * const pending = await store.pendingAuthorizations.consume('demo', req);
 * ```
 */
export interface PendingAuthorizationStore {
  save(tenant: string, record: PendingAuthorizationRecord): Promise<void>;
  get(tenant: string, id: string): Promise<PendingAuthorizationRecord | undefined>;
  /** Atomically takes the record: of any number of concurrent callers, exactly one gets it. */
  consume(tenant: string, id: string): Promise<PendingAuthorizationRecord | undefined>;
}

/**
 * A refresh token, stored under the SHA-256 of the token. Used tokens are kept (with `consumedAt`) until
 * they expire so that a replay is recognised and revokes the whole family.
 *
 * @example
 * ```ts
 * await store.refreshTokens.save('demo', { tokenHash, familyId, clientId, clientType: 'registered',
 *   userId, scope: 'openid', resources: [], createdAt: now, expiresAt: now + 30 * 86_400_000 });
 * ```
 */
export interface RefreshTokenRecord {
  readonly tokenHash: string;
  /** Shared by every token rotated from one authorization; replay revokes them all. */
  readonly familyId: string;
  readonly clientId: string;
  readonly clientType: ClientType;
  readonly userId: string;
  readonly scope: string;
  readonly resources: readonly string[];
  readonly createdAt: number;
  readonly expiresAt: number;
  /** Set when the token was redeemed (rotated). */
  readonly consumedAt?: number;
  /** Set when the token's family was revoked. */
  readonly revokedAt?: number;
  /**
   * Set when the token was rotated with the refresh reuse window on: its successor token, sealed under a
   * key derived from this token's own value (which the store never holds), so that the same client
   * presenting this token again within the window gets the same successor. Opaque to stores.
   */
  readonly sealedSuccessor?: string;
  /**
   * The DPoP key (RFC 7638 thumbprint) a public client's refresh token is bound to (RFC 9449 §5): every
   * refresh must prove it. Successors keep it.
   */
  readonly jkt?: string;
}

/**
 * One rotation of a refresh token, as {@link RefreshTokenStore.rotate} takes it: the presented token, the
 * client presenting it, and what the store needs to write the successor. The successor copies the family,
 * client, user, scope and resources of the presented token.
 */
export interface RefreshTokenRotation {
  /** SHA-256 of the presented token. */
  readonly tokenHash: string;
  /** The authenticated client: a token rotates only for the client it was issued to. */
  readonly clientId: string;
  /** Epoch ms: the presented token's `consumedAt` and the successor's `createdAt`. */
  readonly now: number;
  /** SHA-256 of the successor token. */
  readonly successorHash: string;
  /** The successor's `expiresAt` (epoch ms). */
  readonly successorExpiresAt: number;
  /** Stored as the presented token's `sealedSuccessor` (absent: none is stored). */
  readonly sealedSuccessor?: string;
}

/**
 * What {@link RefreshTokenStore.rotate} did. `ok: true`: the token was active (unconsumed, unrevoked,
 * unexpired at `now`, the presenting client's) and is now consumed, its successor saved; `previous` is the
 * record as it was before. `reason: 'refused'`: nothing was written; `current` is the record as it is now
 * (consumed, revoked, expired or another client's) for the caller to judge. `reason: 'unknown'`: no such
 * token (or swept).
 *
 * @example
 * ```ts
 * const outcome = await store.refreshTokens.rotate('demo', rotation);
 * if (!outcome.ok && outcome.reason === 'refused' && outcome.current.consumedAt !== undefined) handleReuse(outcome.current);
 * ```
 */
export type RefreshTokenRotationOutcome =
  | { readonly ok: true; readonly previous: RefreshTokenRecord }
  | { readonly ok: false; readonly reason: 'refused'; readonly current: RefreshTokenRecord }
  | { readonly ok: false; readonly reason: 'unknown' };

/**
 * Refresh tokens and their families. A token is redeemed only through `rotate`, which consumes it and
 * writes its successor as one atomic step (one statement on PostgreSQL, one transaction on SQLite).
 *
 * @example
 * ```ts
 * const outcome = await store.refreshTokens.rotate('demo', { tokenHash, clientId, now, successorHash, successorExpiresAt });
 * if (!outcome.ok && outcome.reason === 'refused') await store.refreshTokens.revokeFamily('demo', outcome.current.familyId, now);
 * ```
 */
export interface RefreshTokenStore {
  save(tenant: string, record: RefreshTokenRecord): Promise<void>;
  get(tenant: string, tokenHash: string): Promise<RefreshTokenRecord | undefined>;
  /**
   * Atomically consumes an active token (unconsumed, unrevoked, `expiresAt > now`, issued to `clientId`)
   * and saves its successor: of any number of concurrent callers (on any number of instances) at most one
   * gets `ok: true`, and exactly one successor exists afterwards. A caller that gets `refused` because
   * another rotated the token first sees that caller's `consumedAt` and `sealedSuccessor`.
   */
  rotate(tenant: string, rotation: RefreshTokenRotation): Promise<RefreshTokenRotationOutcome>;
  /**
   * Moves the rotation mark (`consumedAt`) of a token already rotated to `rotatedAt`, only ever later: a
   * token not rotated, already marked at or after `rotatedAt`, or unknown is left as it is. The server calls
   * it with a clock read taken after a slow `rotate` returned, so that the refresh reuse window counts from
   * the rotation's commit and not from the request's start. Optional for stores written before 0.x (the
   * window then counts from the request's start); the conformance suite of `./testing` expects it.
   */
  restampRotation?(tenant: string, tokenHash: string, rotatedAt: number): Promise<void>;
  /** Marks every token of the family revoked at `now` (tokens already revoked keep their first mark). */
  revokeFamily(tenant: string, familyId: string, now: number): Promise<void>;
}

/**
 * A remembered consent, keyed on (user, client_id, scope set). `clientId` is the metadata-document URL for
 * such clients. `scopes` is sorted and free of duplicates.
 *
 * @example
 * ```ts
 * await store.consents.save('demo', { userId, clientId, scopes: ['openid'], grantedAt: now, expiresAt });
 * ```
 */
export interface ConsentRecord {
  readonly userId: string;
  readonly clientId: string;
  readonly scopes: readonly string[];
  readonly grantedAt: number;
  readonly expiresAt: number;
}

/**
 * Remembered consents.
 *
 * @example
 * ```ts
 * const remembered = await store.consents.list('demo', userId, clientId, now);
 * ```
 */
export interface ConsentStore {
  /** Inserts, or replaces the record with the same (user, client, scope set). */
  save(tenant: string, record: ConsentRecord): Promise<void>;
  /** The unexpired consents of a user for a client. */
  list(tenant: string, userId: string, clientId: string, now: number): Promise<readonly ConsentRecord[]>;
  /** Forgets every consent of a user for a client. */
  delete(tenant: string, userId: string, clientId: string): Promise<void>;
}

/**
 * Revoked access tokens by `jti`, kept until the token would have expired anyway.
 *
 * @example
 * ```ts
 * await store.revokedAccessTokens.revoke('demo', claims.jti, claims.exp * 1000);
 * ```
 */
export interface RevokedAccessTokenStore {
  revoke(tenant: string, jti: string, expiresAt: number): Promise<void>;
  isRevoked(tenant: string, jti: string, now: number): Promise<boolean>;
}

/**
 * How a grant came to be: a user's authorization of a client through the authorization-code flow, a
 * client acting for itself (client_credentials), an enterprise IdP's ID-JAG redeemed for a user (id_jag), or
 * a workload's own JWT redeemed under a trust policy (workload; its user is `workload:<sub>`).
 *
 * @example
 * ```ts
 * const isMachine = (grant: GrantRecord) => grant.kind === 'client_credentials';
 * ```
 */
export type GrantKind = 'authorization_code' | 'client_credentials' | 'id_jag' | 'workload';

/**
 * One grant: what a user (or, for a machine grant, the client itself) authorized a client to do. Access
 * tokens carry its id (`grant_id`); a revoked grant's tokens are refused at the next request and its refresh
 * family stops working. An authorization-code grant's id is its refresh-token family id.
 *
 * @example
 * ```ts
 * await store.grants.create('demo', { grantId, userId, clientId, clientType: 'registered', kind: 'authorization_code',
 *   scopes: ['mcp:tools'], resources: [], offlineAccess: false, createdAt: now, lastUsedAt: now });
 * ```
 */
export interface GrantRecord {
  readonly grantId: string;
  /** The user, or `client:<client_id>` / `workload:<sub>` for a machine grant. */
  readonly userId: string;
  readonly clientId: string;
  readonly clientType: ClientType;
  readonly kind: GrantKind;
  /** Sorted, free of duplicates. */
  readonly scopes: readonly string[];
  /** RFC 8707 resource indicators the grant is for (empty: the tenant's own resources). */
  readonly resources: readonly string[];
  /** Whether the grant came with a refresh token: access that outlives the session. */
  readonly offlineAccess: boolean;
  /** Epoch ms. */
  readonly createdAt: number;
  /** Epoch ms of the last token issued or accepted for it (written at most about once a minute). */
  readonly lastUsedAt: number;
  /** Epoch ms; absent while the grant is active. */
  readonly revokedAt?: number;
  /** Why it was revoked (`user`, `admin`, `client_blocked`, `code_replay`…); set with `revokedAt`. */
  readonly revokedReason?: string;
  /**
   * Epoch ms after which the store may delete the record (the SQL stores' expiry sweep does), set by the
   * server once every token issued under the grant has expired; absent: kept.
   */
  readonly expiresAt?: number;
}

/**
 * Which grants {@link GrantRecordStore.list} and {@link GrantRecordStore.revokeWhere} take: every filter given must
 * match. A page is ordered by `grantId` and starts after `afterGrantId`.
 *
 * @example
 * ```ts
 * const page = await store.grants.list('demo', { userId: 'alice', limit: 50 });
 * ```
 */
export interface GrantFilter {
  readonly userId?: string;
  readonly clientId?: string;
}

/**
 * Options of {@link GrantRecordStore.list}: the filter, revoked grants or not (default not), and the page.
 *
 * @example
 * ```ts
 * const all = await server.grants.list('demo', { clientId, includeRevoked: true, afterGrantId: last, limit: 1000 });
 * ```
 */
export interface GrantListOptions extends GrantFilter {
  readonly includeRevoked?: boolean;
  /** Start after this grant id (exclusive); absent: from the first. */
  readonly afterGrantId?: string;
  /** At most this many grants (default 100). */
  readonly limit?: number;
}

/**
 * Grants, per tenant. Lookups by id are primary-key searches: the bearer policy reads one per request.
 *
 * @example
 * ```ts
 * const grant = await store.grants.get('demo', claims.grant_id);
 * if (grant?.revokedAt !== undefined) refuse();
 * ```
 */
export interface GrantRecordStore {
  /** Inserts a grant; a grant already stored under the id is left as it is (first writer wins). */
  create(tenant: string, record: GrantRecord): Promise<void>;
  get(tenant: string, grantId: string): Promise<GrantRecord | undefined>;
  list(tenant: string, options?: GrantListOptions): Promise<readonly GrantRecord[]>;
  /**
   * Moves `lastUsedAt` to `usedAt`, only ever later, and with it `expiresAt` when given (in the same
   * conditional write); a no-op for an unknown grant.
   */
  touch(tenant: string, grantId: string, usedAt: number, expiresAt?: number): Promise<void>;
  /**
   * Marks the grant revoked at `now` for `reason`, and sets `expiresAt` when given, unless it already is
   * revoked (the first revocation, and its `expiresAt`, stay). Answers the grant as it is afterwards
   * (`undefined`: unknown).
   */
  revoke(
    tenant: string,
    grantId: string,
    now: number,
    reason: string,
    expiresAt?: number,
  ): Promise<GrantRecord | undefined>;
  /**
   * Revokes every active grant the filter matches (at least one of `userId`, `clientId` is given), setting
   * `expiresAt` when given, and answers the grants this call revoked, as they are afterwards.
   */
  revokeWhere(
    tenant: string,
    filter: GrantFilter,
    now: number,
    reason: string,
    expiresAt?: number,
  ): Promise<readonly GrantRecord[]>;
}

/**
 * A blocked client id (a registered id or a Client ID Metadata Document URL): refused at authorize, at the
 * token endpoint, and (through its revoked grants) at every resource.
 *
 * @example
 * ```ts
 * await store.clientBlocks.block('demo', { clientId: 'https://app.example/client.json', blockedAt: now });
 * ```
 */
export interface ClientBlockRecord {
  readonly clientId: string;
  /** Epoch ms. */
  readonly blockedAt: number;
}

/**
 * Blocked client ids, per tenant.
 *
 * @example
 * ```ts
 * if (await store.clientBlocks.get('demo', clientId)) refuse();
 * ```
 */
export interface ClientBlockStore {
  /** Blocks the client (blocking again keeps the first `blockedAt`). */
  block(tenant: string, record: ClientBlockRecord): Promise<void>;
  /** Lifts the block; answers whether there was one. */
  unblock(tenant: string, clientId: string): Promise<boolean>;
  get(tenant: string, clientId: string): Promise<ClientBlockRecord | undefined>;
}

/**
 * One authorization decision: what was decided (`category`, `reason` from the catalogue
 * `AUTH_EVENT_REASONS`), for whom (tenant, and the client, user and grant when known) and when. Never any
 * token, code, secret, assertion or verifier: only ids the server itself checked.
 *
 * @example
 * ```ts
 * const event: AuthEvent = { at: Date.now(), tenant: 'demo', category: 'token', reason: 'token.issued', status: 200 };
 * ```
 */
export interface AuthEvent {
  /** Epoch ms. */
  readonly at: number;
  readonly tenant: string;
  /** The kind of decision. */
  readonly category:
    | 'authorize'
    | 'consent'
    | 'token'
    | 'introspection'
    | 'revocation'
    | 'registration'
    | 'userinfo'
    | 'resource'
    | 'grant'
    | 'client'
    | 'broker';
  readonly reason: string;
  /** The HTTP status the decision was answered with. */
  readonly status: number;
  readonly errorCode?: string;
  readonly grantType?: string;
  readonly clientId?: string;
  readonly userId?: string;
  readonly grantId?: string;
}

/**
 * Which events {@link AuthEventStore.list} returns: every filter given must match; newest first, at most
 * `limit`.
 *
 * @example
 * ```ts
 * const query: AuthEventQuery = { clientId: 'app', since: Date.now() - 3_600_000, limit: 100 };
 * ```
 */
export interface AuthEventQuery {
  readonly clientId?: string;
  readonly userId?: string;
  /** Epoch ms: only events at or after it. */
  readonly since?: number;
  readonly limit: number;
}

/**
 * The decision timeline, per tenant and bounded in two parts: `append` keeps at most
 * `limits.maxEventsPerTenant` events of the tenant that name an authenticated subject and at most
 * `limits.maxAnonymousEventsPerTenant` that do not (`limits.anonymous`: a stranger's refusals), the oldest of
 * the appended event's own part going first, and none older than `limits.notBefore`. The parts are counted
 * apart so that a flood of anonymous events never removes a person's. (A store written before the anonymous
 * bound, which counts every event against `maxEventsPerTenant`, keeps working as it did.)
 *
 * @example
 * ```ts
 * const refused: AuthEvent = { at: now, tenant: 'demo', category: 'token', reason: 'request.invalid_client', status: 401 };
 * await store.events.append(refused, {
 *   maxEventsPerTenant: 10_000,
 *   maxAnonymousEventsPerTenant: 1_000,
 *   anonymous: refused.userId === undefined,
 *   notBefore: now - 30 * 86_400_000,
 * });
 * const recent = await store.events.list('demo', { userId: 'alice', limit: 50 });
 * ```
 */
export interface AuthEventStore {
  append(
    event: AuthEvent,
    limits: {
      readonly maxEventsPerTenant: number;
      readonly maxAnonymousEventsPerTenant?: number;
      readonly anonymous?: boolean;
      readonly notBefore: number;
    },
  ): Promise<void>;
  list(tenant: string, query: AuthEventQuery): Promise<readonly AuthEvent[]>;
}

/**
 * Everything the authorization server stores. Every method is tenant-scoped; a store may partition by it.
 *
 * @example
 * ```ts
 * const server = createAuthorizationServer({ baseUrl, tenants, storage: createMemoryStorage() });
 * ```
 */
export interface OAuthStorage {
  readonly clients: ClientStore;
  readonly authorizationCodes: AuthorizationCodeStore;
  readonly pendingAuthorizations: PendingAuthorizationStore;
  readonly refreshTokens: RefreshTokenStore;
  readonly consents: ConsentStore;
  readonly revokedAccessTokens: RevokedAccessTokenStore;
  readonly grants: GrantRecordStore;
  readonly clientBlocks: ClientBlockStore;
  /**
   * The decision timeline (`server.listEvents`, `keyhold events`). Without it events still reach the
   * `events.onEvent` hook and the metric, and nothing is kept.
   */
  readonly events?: AuthEventStore;
  /**
   * The spend-once store (`OnceStore` of `@keyhold/core`) behind single-use ids: each `private_key_jwt`
   * assertion's `jti` is spent under the key `assertion:<tenant>:<client>:<jti>` until it expires. Without it
   * the server does not offer `private_key_jwt` (every client authenticating that way is refused). The
   * memory storage and the SQLite, PostgreSQL and Redis factories (`createSqliteStores`…) provide one.
   */
  readonly onceStore?: OnceStore;
}
