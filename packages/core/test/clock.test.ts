import { describe, expect, it } from 'vitest';
import { createManualClock, systemClock } from '../src/clock.js';

// Misuse by code throws CoreError ERR_INVALID_OPTIONS, as every Keyhold option check does.
const INVALID_OPTIONS = expect.objectContaining({ name: 'CoreError', code: 'ERR_INVALID_OPTIONS' });

describe('systemClock', () => {
  it('reads the wall clock', () => {
    const before = Date.now();
    const now = systemClock.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });
});

describe('createManualClock', () => {
  it('stays put until advanced or set', () => {
    const clock = createManualClock(1_000);
    expect(clock.now()).toBe(1_000);
    clock.advance(60_001);
    expect(clock.now()).toBe(61_001);
    clock.set(5);
    expect(clock.now()).toBe(5);
  });

  it('refuses non-finite values', () => {
    expect(() => createManualClock(Number.NaN)).toThrow(INVALID_OPTIONS);
    expect(() => createManualClock(0).advance(Number.POSITIVE_INFINITY)).toThrow(INVALID_OPTIONS);
  });
});
