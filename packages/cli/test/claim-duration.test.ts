import { describe, expect, it } from 'vitest';
import { formatSeconds, parseDuration } from '../src/commands/claim/duration.js';

const YEAR = 365 * 86_400;

describe('claim --ttl: durations with units', () => {
  it.each([
    ['30m', 1_800],
    ['1h', 3_600],
    ['2h', 7_200],
    ['7d', 604_800],
    ['90s', 90],
    ['1h30m', 5_400],
    ['1d2h3m4s', 93_784],
    ['365d', YEAR],
  ])('reads %s as %i seconds', (text, seconds) => {
    expect(parseDuration(text, YEAR)).toEqual({ ok: true, seconds });
  });

  it.each(['30', '-1h', '0m', '0h0m', '366d', '8761h', '1x', '', 'h', '1.5h', '30m1h', '1h 30m', '1H'])(
    'refuses %j',
    (text) => {
      const result = parseDuration(text, YEAR);
      expect(result.ok).toBe(false);
    },
  );

  it('says why a duration over the maximum is refused', () => {
    expect(parseDuration('400d', YEAR)).toMatchObject({
      ok: false,
      message: expect.stringContaining('at most 365d'),
    });
  });
});

describe('claim: remaining time for people', () => {
  it.each([
    [30, '30s'],
    [90, '1m 30s'],
    [5_400, '1h 30m'],
    [86_399, '23h 59m'],
    [86_400, '24h'],
    [172_800, '2d'],
    [604_800 - 1, '6d 23h'],
    [-5, '0s'],
  ])('shows %i seconds as %s', (seconds, text) => {
    expect(formatSeconds(seconds)).toBe(text);
  });
});
