import type { KeyholdError } from '@keyhold/core';

/**
 * A package's error class, constructible with the `ERR_INVALID_OPTIONS` code: every Keyhold package throws
 * its own `KeyholdError` subclass for options that fail validation, so one `instanceof` per package catches
 * its misuse.
 */
export type InvalidOptionsErrorClass = new (
  code: 'ERR_INVALID_OPTIONS',
  message: string,
) => KeyholdError<string>;

/** What {@link optionValidators} returns: checks that throw the package's `ERR_INVALID_OPTIONS` error. */
export interface OptionValidators {
  /** The error to throw for an option the checks below do not cover. */
  invalid(message: string): KeyholdError<string>;
  /** `value` (or `fallback` when omitted) as a safe integer ≥ 1. */
  positiveInteger(name: string, value: number | undefined, fallback: number): number;
  /** `value` (or `fallback` when omitted) as a safe integer in `[min, max]` (both inclusive). */
  integerInRange(
    name: string,
    value: number | undefined,
    fallback: number,
    range: { readonly min: number; readonly max?: number },
  ): number;
  /**
   * `value` parsed as an absolute http(s) URL without a fragment. With `requireHttps`, plain http is accepted
   * only for a loopback host (`localhost`, `127.0.0.1`, `[::1]`), as OAuth allows for development.
   */
  absoluteUrl(name: string, value: string | URL, options?: { readonly requireHttps?: boolean }): URL;
}

const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The option checks every factory runs once, at creation, bound to the package's own error class, so that a
 * bad option throws the same way (`ERR_INVALID_OPTIONS`, a message naming the option) in every package.
 *
 * @example
 * ```ts
 * import { KeyholdError } from '@keyhold/core';
import { optionValidators } from '@keyhold/internal';
 * class WidgetError extends KeyholdError<'ERR_INVALID_OPTIONS'> {}
 * const check = optionValidators(WidgetError);
 * const ttlSeconds = check.positiveInteger('ttlSeconds', undefined, 600); // 600
 * ```
 */
export function optionValidators(ErrorClass: InvalidOptionsErrorClass): OptionValidators {
  const invalid = (message: string): KeyholdError<string> => new ErrorClass('ERR_INVALID_OPTIONS', message);
  const integerInRange: OptionValidators['integerInRange'] = (name, value, fallback, range) => {
    const chosen = value ?? fallback;
    const max = range.max ?? Number.MAX_SAFE_INTEGER;
    if (!Number.isSafeInteger(chosen) || chosen < range.min || chosen > max) {
      const bound = range.max === undefined ? `at least ${range.min}` : `from ${range.min} to ${range.max}`;
      throw invalid(`${name} must be a whole number ${bound}`);
    }
    return chosen;
  };
  return {
    invalid,
    integerInRange,
    positiveInteger: (name, value, fallback) => integerInRange(name, value, fallback, { min: 1 }),
    absoluteUrl(name, value, options = {}) {
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        throw invalid(`${name} must be an absolute URL`);
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:')
        throw invalid(`${name} must be an http(s) URL`);
      if (url.hash !== '') throw invalid(`${name} must not have a fragment`);
      if (
        options.requireHttps === true &&
        url.protocol === 'http:' &&
        !LOOPBACK_HOSTNAMES.has(url.hostname)
      ) {
        throw invalid(`${name} must use https (plain http is accepted only for a loopback host)`);
      }
      return url;
    },
  };
}
