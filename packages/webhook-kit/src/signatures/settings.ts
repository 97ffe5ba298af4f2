import { check } from '../option-checks.js';
import type { SignatureVerificationBase } from './types.js';

/**
 * The secrets of a verifier's settings, checked when it is created: a verifier without a usable secret would
 * refuse every delivery, and an empty secret would be a key anyone knows.
 */
export function secretsOf(config: SignatureVerificationBase): string[] {
  const secrets: unknown = config?.secrets;
  if (!Array.isArray(secrets) || secrets.length === 0)
    throw check.invalid('secrets: give at least one secret');
  if (secrets.some((secret) => typeof secret !== 'string' || secret === '')) {
    throw check.invalid('secrets: a secret must be a non-empty string');
  }
  return [...secrets];
}

/** How far a signed timestamp may be from now, either way, in seconds (default 300). */
export function toleranceSecondsOf(config: { readonly toleranceSeconds?: number }): number {
  return check.positiveInteger('toleranceSeconds', config.toleranceSeconds, 300);
}

/** How long an accepted delivery is remembered to drop replays, in seconds (default 86 400, one day). */
export function dedupeTtlSecondsOf(config: { readonly dedupeTtlSeconds?: number }): number {
  return check.positiveInteger('dedupeTtlSeconds', config.dedupeTtlSeconds, 86_400);
}
