const utf8Encoder = new TextEncoder();

/**
 * Compares two strings in constant time with respect to their content: every byte of `expected` is
 * visited whatever `presented` holds, so the time depends on the length of `expected` alone (pass the
 * secret or the stored value second). Strings of different lengths compare without throwing.
 *
 * @example
 * ```ts
 * if (!constantTimeEqual(request.headers['x-webhook-secret'] ?? '', secret)) return unauthorized();
 * ```
 */
export function constantTimeEqual(presented: string, expected: string): boolean {
  // Plain JS on the UTF-8 bytes: the same on every runtime, and synchronous (WebCrypto has no such call).
  const left = utf8Encoder.encode(presented);
  const right = utf8Encoder.encode(expected);
  let difference = left.length ^ right.length;
  for (let i = 0; i < right.length; i++) {
    // Past the end of `left` the index reads undefined, which `^` takes as 0: no branch on the content.
    difference |= (left[i] as number) ^ (right[i] as number);
  }
  return difference === 0;
}
