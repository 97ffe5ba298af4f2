const UNIT_SECONDS = { d: 86_400, h: 3_600, m: 60, s: 1 } as const;
const DURATION = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;

/** The result of {@link parseDuration}. */
export type ParsedDuration =
  | { readonly ok: true; readonly seconds: number }
  | { readonly ok: false; readonly message: string };

/**
 * Reads a `--ttl` value: whole numbers with the units d, h, m, s, largest first, each at most once
 * (`30m`, `1h`, `7d`, `90s`, `1h30m`). Bare numbers, negatives, zero and anything over `maxSeconds` are refused.
 *
 * @example
 * ```ts
 * parseDuration('1h30m', 31_536_000); // { ok: true, seconds: 5400 }
 * ```
 */
export function parseDuration(text: string, maxSeconds: number): ParsedDuration {
  const match = DURATION.exec(text);
  if (text === '' || match === null) {
    return {
      ok: false,
      message: `"${text}" is not a duration; use a number with a unit, like 30m, 1h, 2h, 7d, 90s or 1h30m.`,
    };
  }
  const [, days, hours, minutes, seconds] = match;
  const total =
    Number(days ?? 0) * UNIT_SECONDS.d +
    Number(hours ?? 0) * UNIT_SECONDS.h +
    Number(minutes ?? 0) * UNIT_SECONDS.m +
    Number(seconds ?? 0) * UNIT_SECONDS.s;
  if (total === 0) return { ok: false, message: 'The duration must be longer than zero.' };
  if (total > maxSeconds) {
    return {
      ok: false,
      message: `The duration must be at most ${formatSeconds(maxSeconds)}; "${text}" is longer.`,
    };
  }
  return { ok: true, seconds: total };
}

/**
 * A remaining time for people: the two largest units (`6d 23h`, `1h 30m`, `45m`, `30s`); days only from
 * two days on, so the default lifetime reads `24h`.
 *
 * @example
 * ```ts
 * formatSeconds(5_400); // '1h 30m'
 * ```
 */
export function formatSeconds(totalSeconds: number): string {
  const seconds = Math.max(0, Math.floor(totalSeconds));
  if (seconds < 60) return `${seconds}s`;
  const parts: string[] = [];
  let rest = seconds;
  for (const [unit, size] of Object.entries(UNIT_SECONDS)) {
    if (unit === 'd' && seconds < 2 * UNIT_SECONDS.d) continue;
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0 || parts.length > 0) parts.push(`${count}${unit}`);
  }
  return parts
    .slice(0, 2)
    .filter((part) => !part.startsWith('0'))
    .join(' ');
}
