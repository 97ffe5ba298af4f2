// Runtime-neutral: what the CIMD resolver needs from a network, and the error a safe one refuses with.

import { OAuthCoreError } from '../errors.js';

/**
 * The fetch signature the CIMD resolver calls: the global `fetch` fits it, and so does the SSRF-safe fetch
 * (`createSafeFetch`), which a host's `cimd.fetch` receives as its third argument.
 * Replacing it (tests, a host's egress proxy) replaces the network; the SSRF checks are then the replacement's job.
 *
 * @example
 * ```ts
 * const fetchDocument: CimdFetch = (url, init) => fetch(url, init);
 * ```
 */
export type CimdFetch = (url: string, init: RequestInit) => Promise<Response>;

/**
 * The error the SSRF-safe fetch (`createSafeFetch`) rejects with when a host resolves to, or connects to, a
 * forbidden address: the resolvers answer it with `forbidden_address`.
 *
 * @example
 * ```ts
 * const refused = new ForbiddenAddressError('metadata.example', '10.0.0.7'); // code ERR_FORBIDDEN_ADDRESS
 * ```
 */
export class ForbiddenAddressError extends OAuthCoreError {
  declare readonly code: 'ERR_FORBIDDEN_ADDRESS';
  /** The refused address. */
  readonly address: string;

  constructor(hostname: string, address: string) {
    super('ERR_FORBIDDEN_ADDRESS', `${hostname} resolves to ${address}, which is not a public address`);
    this.address = address;
  }
}
