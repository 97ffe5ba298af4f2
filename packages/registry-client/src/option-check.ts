import { optionValidators } from '@keyhold/internal';
import { RegistryError } from './errors.js';

/** The option checks of this package: a bad option throws {@link RegistryError} `ERR_INVALID_OPTIONS`. */
export const optionCheck: ReturnType<typeof optionValidators> = optionValidators(RegistryError);

// RFC 9110 §5.5: a field value is visible ASCII, spaces, tabs and obs-text; CR, LF and NUL never.
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * `value` (or `fallback`) as a non-empty HTTP header value. A value no header can carry would otherwise fail
 * on every request (the client falling back to the local file, the API answering 500), not at creation.
 */
export function headerValueOption(name: string, value: string | undefined, fallback: string): string {
  const chosen = value ?? fallback;
  if (typeof chosen !== 'string' || chosen.trim() === '' || !FIELD_VALUE.test(chosen)) {
    throw optionCheck.invalid(`${name} must be a non-empty header value without control characters`);
  }
  return chosen;
}

/** `value` as a function (or `fallback` when omitted): an object without it would fail on first use. */
export function functionOption<T>(name: string, value: T | undefined, fallback: T | undefined): T {
  const chosen = value ?? fallback;
  if (typeof chosen !== 'function') throw optionCheck.invalid(`${name} must be a function`);
  return chosen;
}
