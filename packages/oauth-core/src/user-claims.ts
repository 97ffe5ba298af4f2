/**
 * The claims the host knows about a user, as its `userClaims` option returns them (OpenID Connect Core §5.1
 * names: `name`, `email`, `email_verified`…). Keyhold releases only the ones the granted scopes cover (see
 * {@link AuthorizationServerOptions.userClaims}); `sub` is always the token's subject, whatever is here.
 *
 * @example
 * ```ts
 * const claims: UserClaims = { name: 'Ada Lovelace', email: 'ada@example.com', email_verified: true };
 * ```
 */
export type UserClaims = Readonly<Record<string, unknown>>;

/**
 * The host hook of the `userClaims` option: the claims of a user of a tenant, sync or async. `scopes` are
 * the granted scopes, for a host that loads only what it may release; returning more is harmless (the
 * server filters). Throw `StorageUnavailableError` of `@keyhold/core` when the user store is down (503).
 *
 * @example
 * ```ts
 * const userClaims: UserClaimsHook = async (tenant, userId) => users.get(userId) ?? {};
 * ```
 */
export type UserClaimsHook = (
  tenant: string,
  userId: string,
  scopes: readonly string[],
) => UserClaims | undefined | Promise<UserClaims | undefined>;

// OpenID Connect Core §5.4: the claims each standard scope requests. Nothing outside this table is released:
// a host's extra fields (roles, internal ids) never leak through a scope the user consented to.
const CLAIMS_BY_SCOPE: Readonly<Record<string, readonly string[]>> = {
  profile: [
    'name',
    'family_name',
    'given_name',
    'middle_name',
    'nickname',
    'preferred_username',
    'profile',
    'picture',
    'website',
    'gender',
    'birthdate',
    'zoneinfo',
    'locale',
    'updated_at',
  ],
  email: ['email', 'email_verified'],
  address: ['address'],
  phone: ['phone_number', 'phone_number_verified'],
};

/** Every claim a scope can release, for the discovery document's `claims_supported`. */
export const RELEASABLE_CLAIMS: readonly string[] = ['sub', ...Object.values(CLAIMS_BY_SCOPE).flat()];

/** The host's claims the granted scopes cover (never `sub`): JSON values only, `undefined` and functions dropped. */
export function releasedClaims(
  claims: UserClaims | undefined,
  scopes: readonly string[],
): Record<string, unknown> {
  const released: Record<string, unknown> = {};
  if (typeof claims !== 'object' || claims === null) return released;
  for (const scope of scopes) {
    for (const name of CLAIMS_BY_SCOPE[scope] ?? []) {
      if (!Object.hasOwn(claims, name)) continue;
      const value = claims[name];
      if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
      released[name] = value;
    }
  }
  return released;
}

/** Whether any granted scope can release a claim: the hook is not called for `openid` alone. */
export function releasesClaims(scopes: readonly string[]): boolean {
  return scopes.some((scope) => CLAIMS_BY_SCOPE[scope] !== undefined);
}

/** The released claims of a user: asks the host hook only when some granted scope can release one. */
export async function claimsFor(
  // Only the hook and the slug: the whole server context would make options.ts and this file import each other.
  context: { readonly userClaims?: UserClaimsHook | undefined },
  tenant: { readonly slug: string },
  userId: string,
  scopes: readonly string[],
): Promise<Record<string, unknown>> {
  if (context.userClaims === undefined || !releasesClaims(scopes)) return {};
  return releasedClaims(await context.userClaims(tenant.slug, userId, scopes), scopes);
}
