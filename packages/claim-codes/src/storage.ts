/**
 * One claim: a code tied to a directory until it expires.
 */
export interface ClaimRecord {
  /** The stored form: 6 uppercase characters, no dash. */
  readonly code: string;
  /** An absolute directory path, resolved through symlinks when the claim was created. */
  readonly scopeDir: string;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  /** Epoch milliseconds; the claim is expired when `now >= expiresAt`. */
  readonly expiresAt: number;
  /** A human-readable note. */
  readonly label?: string;
}

/**
 * Where claims are kept. Stores compare `expiresAt` only to a `now` they are given and never decide
 * validity themselves; the claim service does. Implementations: {@link createMemoryClaimStore},
 * {@link createFileClaimStore}, and those of `@keyhold/store-*`; all pass `describeClaimStoreConformance`.
 *
 * @example
 * ```ts
 * const store: ClaimStore = createMemoryClaimStore();
 * await store.insert({ code: 'K7QX2M', scopeDir: '/p', createdAt: 0, expiresAt: 60_000 });
 * ```
 */
export interface ClaimStore {
  /**
   * Adds a record. Answers `false`, changing nothing, when a record with the same code exists (expired or
   * not); under any concurrency exactly one of several inserts of one code answers `true`.
   */
  insert(record: ClaimRecord): Promise<boolean>;
  /** The record with this stored-form code, expired or not; `undefined` when there is none. */
  get(code: string): Promise<ClaimRecord | undefined>;
  /** Every record, expired or not, in no particular order. */
  list(): Promise<ClaimRecord[]>;
  /** Removes a record; `true` when it existed. Exactly one of several concurrent deletes answers `true`. */
  delete(code: string): Promise<boolean>;
  /** Removes every record with `expiresAt <= now` and answers how many went. */
  deleteExpired(now: number): Promise<number>;
}
