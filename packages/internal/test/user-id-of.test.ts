import { describe, expect, it } from 'vitest';
import { userIdOf } from '../src/fetch-bridge.js';

describe('userIdOf: the host names the user, resolved only when asked', () => {
  it('takes a string as it is, calls a function once, and treats "" as no user', async () => {
    let calls = 0;
    expect(await userIdOf({ userId: 'u1' })).toBe('u1');
    expect(
      await userIdOf({
        userId: async () => {
          calls++;
          return 'u2';
        },
      }),
    ).toBe('u2');
    expect(calls).toBe(1);
    expect(await userIdOf({ userId: () => '' })).toBeUndefined();
    expect(await userIdOf(undefined)).toBeUndefined();
  });
});
