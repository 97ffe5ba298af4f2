import type { UserClaimsHook } from '@keyhold/oauth-core';

/**
 * The example host's `userClaims`: its users are bare ids (the dev login page, or the owner in single-user
 * mode), so the profile is the id itself. A real host reads its user directory here; Keyhold releases only
 * what the granted scopes cover (`profile` here: `name`, `preferred_username`).
 *
 * @example
 * ```ts
 * createAuthorizationServer({ ...options, userClaims: exampleUserClaims });
 * ```
 */
export const exampleUserClaims: UserClaimsHook = (_tenant, userId) => ({
  name: userId,
  preferred_username: userId,
});
