import { type OptionValidators, optionValidators } from '@keyhold/internal';
import { RedisStoreError } from './errors.js';

/** Options shared by the Redis stores. */
export interface RedisStoreOptions {
  /** Prefix of every key this store writes (default `keyhold:`). */
  readonly keyPrefix?: string;
}

/** The option checks of every Redis factory: a bad option throws {@link RedisStoreError}. */
export const check: OptionValidators = optionValidators(RedisStoreError);

/**
 * The key prefix of one store: the deployment's `keyPrefix` (checked once, at creation) followed by the
 * store's own namespace, so stores sharing a Redis never read each other's keys.
 */
export function storeKeyPrefix(options: RedisStoreOptions, namespace: string): string {
  const keyPrefix = options.keyPrefix ?? 'keyhold:';
  if (typeof keyPrefix !== 'string') throw check.invalid('keyPrefix must be a string');
  return `${keyPrefix}${namespace}:`;
}
