import { describe, expect, it } from 'vitest';
import { parseAsk } from '../src/ask.js';
import { TokenVaultError } from '../src/errors.js';

describe('an ask is validated where a tool method hands it to the broker', () => {
  it('keeps a message that is given', () => {
    const ask = { ask: 'oauth', provider: 'github', scopes: ['repo'], message: 'List your repos' };
    expect(parseAsk(ask)).toEqual(ask);
  });

  it('leaves the message out when a JavaScript tool passes message: undefined (omitted, never undefined)', () => {
    const parsed = parseAsk({ ask: 'oauth', provider: 'github', scopes: [], message: undefined });
    expect(parsed).toEqual({ ask: 'oauth', provider: 'github', scopes: [] });
    expect(Object.hasOwn(parsed, 'message')).toBe(false);
  });

  it('refuses anything that is not an oauth ask with ERR_INVALID_ASK', () => {
    expect(() => parseAsk({ ask: 'oauth', provider: '', scopes: [] })).toThrow(TokenVaultError);
    expect(() => parseAsk({ ask: 'password', provider: 'github', scopes: [] })).toThrow(/not an oauth ask/);
  });
});
