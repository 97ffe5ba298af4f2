import { ForbiddenAddressError } from './fetch-contract.js';

// Helpers shared by the fetchers of untrusted documents (metadata documents, client JWK Sets). The bounded
// body read itself (readCapped, raceAbort, discard) lives in @keyhold/core.

export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

export function forbiddenAddressIn(error: unknown): ForbiddenAddressError | undefined {
  for (
    let current = error, depth = 0;
    current instanceof Error && depth < 5;
    current = current.cause, depth++
  ) {
    if (current instanceof ForbiddenAddressError) return current;
  }
  return undefined;
}
