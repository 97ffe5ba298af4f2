import { sha256Base64url } from './sha256.js';

/** The longest key {@link onceKey} returns; a store may rely on keys being at most this long. */
const MAX_KEY_LENGTH = 200;

/**
 * The `OnceStore` key of one single-use id: `namespace:part:…:last`. Every part but the last is
 * percent-encoded, so no choice of ids makes two tuples share a key. A key longer than 200 characters is
 * replaced by `namespace:#` and the SHA-256 of the whole (base64url), so keys stay short whatever a client
 * sends, and an id carrying secret material is never stored whole.
 *
 * @example
 * ```ts
 * const key = onceKey('assertion', 'demo', 'client-1', 'jti-123'); // 'assertion:demo:client-1:jti-123'
 * ```
 */
export function onceKey(namespace: string, ...parts: readonly string[]): string {
  const last = parts.length - 1;
  const encoded = parts.map((part, index) => (index === last ? part : encodeURIComponent(part)));
  const key = [namespace, ...encoded].join(':');
  return key.length <= MAX_KEY_LENGTH ? key : `${namespace}:#${sha256Base64url(key)}`;
}
