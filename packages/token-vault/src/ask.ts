import * as z from 'zod';
import { TokenVaultError } from './errors.js';

/**
 * What a tool method yields to ask for a user's token at a third-party provider. The yield evaluates to
 * the access token as a string.
 *
 * @example
 * ```ts
 * async function* listRepos(): AsyncGenerator<OAuthAsk, unknown, string> {
 *   const token = yield { ask: 'oauth', provider: 'github', scopes: ['repo'], message: 'List your repos' };
 *   const response = await fetch('https://api.github.com/user/repos', { headers: { authorization: `Bearer ${token}` } });
 *   return response.json();
 * }
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

const askSchema = z.strictObject({
  ask: z.literal('oauth'),
  provider: z.string().min(1).max(128),
  scopes: z.array(z.string().min(1).max(256)).max(64),
  message: z.string().max(1000).optional(),
});

/**
 * Validates an ask at the boundary between a tool method and the broker; throws `ERR_INVALID_ASK` for
 * anything else, since a bad ask is a programming error in the tool module.
 */
export function parseAsk(value: unknown): OAuthAsk {
  const parsed = askSchema.safeParse(value);
  if (!parsed.success) {
    throw new TokenVaultError('ERR_INVALID_ASK', `not an oauth ask: ${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
}
