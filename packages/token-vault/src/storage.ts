/**
 * The storage contracts of `@keyhold/token-vault`. Records are plain JSON-serialisable objects; expiry is an
 * absolute epoch-millisecond `expiresAt` compared with a `now` the caller passes in, so stores never read a
 * clock. A missing record is `undefined`.
 */

/**
 * What names one grant: (tenantId, userId, toolModuleId, provider, scopes). `scopes` is always in canonical form
 * (unique, sorted), so a store may key on `scopes.join(' ')`.
 */
export interface GrantKey {
  readonly tenantId: string;
  /** The user (`sub`) the tokens belong to. */
  readonly userId: string;
  /** The tool-module id. */
  readonly toolModuleId: string;
  /** The provider id. */
  readonly provider: string;
  /** Canonical (unique, sorted) scopes. */
  readonly scopes: readonly string[];
}

/**
 * A third-party grant as the broker writes it: the provider grant's fields plus the user, the encrypted refresh token
 * and a status. Encrypted values are vault ciphertexts bound to (tenant, user, toolModuleId, provider).
 */
export interface Grant extends GrantKey {
  /** `invalid` after a refresh was refused by the provider; the next ask elicits again. */
  readonly status: 'valid' | 'invalid';
  readonly accessTokenEncrypted: string;
  readonly refreshTokenEncrypted?: string;
  /** When the access token expires (epoch ms), computed from the time the token request was sent. */
  readonly tokenExpiresAt?: number;
  /** The scopes the provider reported granting, when it said. */
  readonly grantedScopes?: readonly string[];
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** A grant as read back from a store: with the version that compare-and-swap checks. */
export interface StoredGrant extends Grant {
  /** Starts at 1 and grows by one with every write of this key. */
  readonly version: number;
}

/**
 * Grants keyed on {@link GrantKey}. `compareAndSwap` is what makes a refresh single-flight across processes:
 * of several writers holding the same version, exactly one succeeds.
 *
 * @example
 * ```ts
 * const current = await store.get(key);
 * const next = current && (await store.compareAndSwap({ ...current, accessTokenEncrypted }, current.version));
 * if (!next) { // someone else wrote first: read again
 * }
 * ```
 */
export interface GrantStore {
  /** The grant with this key, or `undefined`. */
  get(key: GrantKey): Promise<StoredGrant | undefined>;
  /** Writes the grant whatever is stored; the version becomes the previous version + 1 (1 when new). */
  put(grant: Grant): Promise<StoredGrant>;
  /**
   * Writes the grant only when the stored version equals `expectedVersion`; returns the stored grant with
   * the new version, or `undefined` (and writes nothing) when the grant is gone or was written meanwhile.
   */
  compareAndSwap(grant: Grant, expectedVersion: number): Promise<StoredGrant | undefined>;
  /** Deletes the grant; `true` when one was deleted. */
  delete(key: GrantKey): Promise<boolean>;
  /** Every grant of a tenant, or of one user in it, in no particular order (for rotation and account pages). */
  list(filter: { readonly tenantId: string; readonly userId?: string }): Promise<StoredGrant[]>;
}

/**
 * An authorization request raised by an ask and not yet finished: what the elicitation URL points at.
 * The connect step reads it (it may be opened more than once); a successful callback deletes it.
 */
export interface ElicitationRecord {
  readonly elicitationId: string;
  readonly tenantId: string;
  readonly userId: string;
  readonly toolModuleId: string;
  readonly provider: string;
  /** Canonical scopes. */
  readonly scopes: readonly string[];
  readonly message: string;
  readonly createdAt: number;
  readonly expiresAt: number;
}

/**
 * The browser leg of an authorization, created by the connect step and consumed by the callback. The
 * `state` sent to the provider is an opaque random value; this record holds everything the callback needs
 * (who asked, for which tool module and provider, the PKCE verifier) and is found by the SHA-256 of the
 * state, so replaying a state finds nothing and the state itself reveals nothing.
 */
export interface PendingAuthorization {
  /** base64url SHA-256 of the opaque `state` (the state is the single-use nonce). */
  readonly nonceHash: string;
  readonly elicitationId: string;
  readonly tenantId: string;
  readonly userId: string;
  readonly toolModuleId: string;
  readonly provider: string;
  readonly scopes: readonly string[];
  /** The PKCE code_verifier; short-lived, and useless without the provider's code. */
  readonly codeVerifier: string;
  readonly createdAt: number;
  readonly expiresAt: number;
}

/**
 * The third-party (provider) authorizations in progress: the elicitations asks raised, and the pending
 * authorizations of their browser legs. (Not to be confused with `PendingAuthorizationStore` of
 * `@keyhold/oauth-core`, which holds the host's own authorization requests.) `consumeAuthorization` is atomic: under any concurrency exactly
 * one caller gets the record, and an expired record is deleted and not returned.
 *
 * @example
 * ```ts
 * const pending = await store.consumeAuthorization(sha256Base64url(state), clock.now());
 * if (!pending) return replayed();
 * ```
 */
export interface ProviderAuthorizationStore {
  /**
   * Stores the record, then deletes the same user's (`tenantId`, `userId`) elicitations that expired by
   * `record.createdAt` and all but the newest `maxPerUser` live ones (the record just put always stays).
   */
  putElicitation(record: ElicitationRecord, maxPerUser: number): Promise<void>;
  /** The elicitation, or `undefined` when unknown or `expiresAt <= now`. */
  getElicitation(elicitationId: string, now: number): Promise<ElicitationRecord | undefined>;
  deleteElicitation(elicitationId: string): Promise<void>;
  /** Stores the record, bounded per user exactly as {@link ProviderAuthorizationStore.putElicitation}. */
  putAuthorization(record: PendingAuthorization, maxPerUser: number): Promise<void>;
  /** Takes the pending authorization out of the store; `undefined` when unknown, taken or expired. */
  consumeAuthorization(nonceHash: string, now: number): Promise<PendingAuthorization | undefined>;
}

/**
 * A lease that lets one process at a time refresh a grant. `acquire` returns a fencing token when the lease
 * was free (or its holder's lease expired at `now`), `undefined` otherwise; `release` frees it only for the
 * holder of that token. A Redis implementation is `SET key token NX PX (expiresAt - now)`.
 *
 * @example
 * ```ts
 * const token = await lock.acquire('grant:…', now, now + 30_000);
 * if (token) try { await refresh(); } finally { await lock.release('grant:…', token); }
 * ```
 */
export interface RefreshLock {
  acquire(key: string, now: number, expiresAt: number): Promise<string | undefined>;
  /** `true` when the caller held the lease and it is now free. */
  release(key: string, token: string): Promise<boolean>;
}

/** Everything a broker stores. */
export interface TokenVaultStorage {
  readonly grants: GrantStore;
  readonly pending: ProviderAuthorizationStore;
  readonly refreshLock: RefreshLock;
}
