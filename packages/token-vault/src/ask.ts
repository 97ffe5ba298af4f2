import type { OAuthAsk } from '@keyhold/core';
import * as z from 'zod';
import { TokenVaultError } from './errors.js';

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
  // A tool written in JavaScript may pass `message: undefined`; the ask it means has no message.
  const { message, ...ask } = parsed.data;
  return message === undefined ? ask : { ...ask, message };
}
