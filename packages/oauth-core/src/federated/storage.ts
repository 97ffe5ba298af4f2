/**
 * A user as an upstream identity provider knows them: the provider's exact issuer identifier and the `sub`
 * it gives the user. The pair is unique and stable; an e-mail address is neither, so it is never the key.
 */
export interface FederatedIdentity {
  readonly issuer: string;
  readonly subject: string;
}

/**
 * Maps upstream identities to stable local user ids, provisioning a user on the first federated login.
 * Implementations must make {@link UserStore.findOrCreateUser} atomic: under any concurrency, all callers for
 * one identity get the same user id and exactly one of them sees `created: true`.
 *
 * @example
 * ```ts
 * const { userId, created } = await users.findOrCreateUser({ issuer, subject }, { now: clock.now() });
 * ```
 */
export interface UserStore {
  /** The user linked to `identity`, created (with a new, never reused id) when there is none. */
  findOrCreateUser(
    identity: FederatedIdentity,
    context: { readonly now: number },
  ): Promise<{ readonly userId: string; readonly created: boolean }>;
  /** The user linked to `identity`, or `undefined`. */
  findUser(identity: FederatedIdentity): Promise<string | undefined>;
  /** Every identity linked to `userId`, oldest first; empty for an unknown user. */
  listIdentities(userId: string): Promise<readonly FederatedIdentity[]>;
}

/**
 * What a started federated login remembers until its callback: kept server-side, keyed by a hash of the
 * `state` value, taken once.
 */
export interface LoginTransaction {
  /** SHA-256 (base64url) of the `state` sent upstream; the state itself is never stored. */
  readonly id: string;
  readonly providerId: string;
  /** The PKCE code verifier (RFC 7636). */
  readonly codeVerifier: string;
  /** The OpenID Connect nonce the id_token must carry. */
  readonly nonce: string;
  /** Where the host wants to send the user afterwards (for example its `/authorize` URL). */
  readonly returnTo?: string;
  /** Epoch milliseconds. */
  readonly expiresAt: number;
}

/**
 * Storage of pending federated logins. `consume` is atomic: one caller gets the transaction, every other gets
 * `undefined`; an expired transaction is removed and never returned.
 *
 * @example
 * ```ts
 * const transaction = await transactions.consume(id, clock.now());
 * ```
 */
export interface LoginTransactionStore {
  save(transaction: LoginTransaction): Promise<void>;
  consume(id: string, now: number): Promise<LoginTransaction | undefined>;
}
