/**
 * What a tool method yields (or passes to `context.getToken`) to ask for the user's token at a third-party
 * provider; the yield evaluates to the access token as a string. One shape for the whole family:
 * `@keyhold/mcp` passes it from a tool to the broker, and `@keyhold/token-vault` validates and answers it.
 *
 * @example
 * ```ts
 * import type { OAuthAsk } from '@keyhold/core';
 *
 * const ask: OAuthAsk = { ask: 'oauth', provider: 'github', scopes: ['repo'], message: 'List your repos' };
 * ```
 */
export interface OAuthAsk {
  readonly ask: 'oauth';
  /** A registered provider id (built-in template or custom). */
  readonly provider: string;
  /** Requested scopes; an empty array means the provider's default scopes. */
  readonly scopes: readonly string[];
  /** A human-readable reason shown to the user before authorization. */
  readonly message?: string;
}
