import type { KeyholdError } from '@keyhold/core';
import { expect } from 'vitest';

/**
 * Asserts that `create` throws, synchronously, the package's `ERR_INVALID_OPTIONS` error (an instance of
 * `ErrorClass`), and returns it for further checks on its message: the one assertion behind every
 * "options are validated once, at creation" test. Needs vitest.
 *
 * @example
 * ```ts
 * import { expectInvalidOptions } from '@keyhold/internal/testing';
 * import { createWebhookHandler, WebhookError } from '@keyhold/webhook-kit';
 * import { expect } from 'vitest';
 *
 * const error = expectInvalidOptions(WebhookError, () => createWebhookHandler({ modules: [], basePath: 'x' }));
 * expect(error.message).toContain('basePath');
 * ```
 */
export function expectInvalidOptions<E extends KeyholdError<string>>(
  ErrorClass: abstract new (...args: never[]) => E,
  create: () => unknown,
): E {
  let thrown: unknown;
  try {
    create();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, 'expected ERR_INVALID_OPTIONS at creation').toBeInstanceOf(ErrorClass);
  expect((thrown as E).code).toBe('ERR_INVALID_OPTIONS');
  return thrown as E;
}
