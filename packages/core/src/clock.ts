import { CoreError } from './errors.js';

/**
 * The source of time for everything that expires. Inject it; tests move a {@link ManualClock} instead
 * of sleeping.
 *
 * @example
 * ```ts
 * const expiresAt = clock.now() + 60_000;
 * ```
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/**
 * The wall clock (`Date.now()`).
 *
 * @example
 * ```ts
 * const expiresAt = systemClock.now() + 60_000;
 * ```
 */
export const systemClock: Clock = Object.freeze({ now: (): number => Date.now() });

/**
 * A clock that only moves when told to; for tests.
 *
 * @example
 * ```ts
 * const clock = createManualClock(Date.parse('2026-01-01T00:00:00Z'));
 * clock.advance(61_000);
 * ```
 */
export interface ManualClock extends Clock {
  /** Moves the clock forward (or backward, with a negative value) by `ms` milliseconds. */
  advance(ms: number): void;
  /** Sets the clock to an absolute epoch-millisecond value. */
  set(epochMs: number): void;
}

// Misuse by code (a time that is not a finite number) throws CoreError ERR_INVALID_OPTIONS.
const invalid = (message: string) => new CoreError('ERR_INVALID_OPTIONS', message);

/**
 * Creates a {@link ManualClock} starting at `startEpochMs` (default: the current wall-clock time). A time
 * that is not a finite number throws `CoreError` `ERR_INVALID_OPTIONS`.
 *
 * @example
 * ```ts
 * const clock = createManualClock(0);
 * clock.advance(1_000); // clock.now() === 1000
 * ```
 */
export function createManualClock(startEpochMs: number = Date.now()): ManualClock {
  if (!Number.isFinite(startEpochMs)) throw invalid('startEpochMs must be a finite number');
  let current = startEpochMs;
  return {
    now: () => current,
    advance: (ms) => {
      if (!Number.isFinite(ms)) throw invalid('ms must be a finite number');
      current += ms;
    },
    set: (epochMs) => {
      if (!Number.isFinite(epochMs)) throw invalid('epochMs must be a finite number');
      current = epochMs;
    },
  };
}
