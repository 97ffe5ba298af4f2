import { createHostMatcher } from '@keyhold/internal';

/**
 * How many Host headers a request carried (counted without allocating: this runs on every request). RFC 9112
 * §3.2: more than one is an error; Node keeps the first while a proxy may route on the last.
 */
export function hostHeaderCount(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === 4 && name.toLowerCase() === 'host') count++;
  }
  return count;
}

/**
 * Whether a Host value is one well-formed host name: it matches itself, since the matcher drops an allowed
 * entry it cannot parse, so a malformed value (spaces, user information, a list, empty labels) matches nothing.
 */
export function isWellFormedHost(host: string | undefined): host is string {
  return host !== undefined && host !== '' && createHostMatcher([host])(host);
}
