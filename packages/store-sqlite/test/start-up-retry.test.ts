import { describe, expect, it } from 'vitest';
import { retryWhileBusy } from '../src/start-up-retry.js';

function busy(code = 'SQLITE_BUSY'): Error {
  return Object.assign(new Error('database is locked'), { code });
}

describe('start-up steps that SQLite answers busy at once are run again within the busy timeout', () => {
  it('a step that is busy twice, then succeeds, succeeds', () => {
    let calls = 0;
    const result = retryWhileBusy(2000, () => {
      calls++;
      if (calls < 3) throw busy(calls === 1 ? 'SQLITE_BUSY' : 'SQLITE_BUSY_SNAPSHOT');
      return 'done';
    });
    expect(result).toBe('done');
    expect(calls).toBe(3);
  });

  it('a step still busy when the wait is over throws the busy error', () => {
    const started = Date.now();
    expect(() =>
      retryWhileBusy(100, () => {
        throw busy();
      }),
    ).toThrow('database is locked');
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  });

  it('any other error is thrown at once, never retried', () => {
    let calls = 0;
    expect(() =>
      retryWhileBusy(2000, () => {
        calls++;
        throw Object.assign(new Error('UNIQUE constraint failed'), { code: 'SQLITE_CONSTRAINT' });
      }),
    ).toThrow('UNIQUE');
    expect(calls).toBe(1);
  });

  it('a busy timeout of 0 means one attempt', () => {
    let calls = 0;
    expect(() =>
      retryWhileBusy(0, () => {
        calls++;
        throw busy();
      }),
    ).toThrow();
    expect(calls).toBe(1);
  });
});
