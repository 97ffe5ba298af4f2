import { KeyholdError } from '@keyhold/core';
import { optionValidators } from '@keyhold/internal';
import { describe, expect, it } from 'vitest';
import { planExpirySweep, runExpirySweeper } from '../src/expiry-sweeper.js';

class StoreError extends KeyholdError<'ERR_INVALID_OPTIONS'> {}
const fail = optionValidators(StoreError);

describe('planExpirySweep: one option shape for both stores', () => {
  it('fills in the defaults and reads plain strings as tables with expires_at', () => {
    expect(planExpirySweep({ tables: ['a', { table: 'b', expiresAtColumn: 'valid_until' }] }, fail)).toEqual({
      tables: [
        { table: 'a', column: 'expires_at' },
        { table: 'b', column: 'valid_until' },
      ],
      batchSize: 1000,
      maxBatchesPerSweep: 10,
      intervalMs: 60_000,
    });
  });

  it('takes intervalSeconds, and the older intervalMs', () => {
    expect(planExpirySweep({ tables: [], intervalSeconds: 5 }, fail).intervalMs).toBe(5000);
    expect(planExpirySweep({ tables: [], intervalMs: 250 }, fail).intervalMs).toBe(250);
  });

  it.each([
    ['a table name that is not a plain identifier', { tables: ['x; DROP TABLE y'] }],
    ['a column name that is not a plain identifier', { tables: [{ table: 'x', expiresAtColumn: 'a b' }] }],
    ['a zero interval', { tables: [], intervalSeconds: 0 }],
    ['a fractional batch size', { tables: [], batchSize: 1.5 }],
  ])('refuses %s', (_, options) => {
    expect(() => planExpirySweep(options, fail)).toThrow(
      expect.objectContaining({
        code: 'ERR_INVALID_OPTIONS',
        message: expect.stringMatching(/must be|identifier/),
      }),
    );
    expect(() => planExpirySweep(options, fail)).toThrow(StoreError);
  });
});

describe('runExpirySweeper: bounded sweeps, one at a time', () => {
  it('stops a table after a short batch or after maxBatchesPerSweep, and counts what went', async () => {
    const remaining = new Map([
      ['a', 25],
      ['b', 3],
    ]);
    const calls: string[] = [];
    const sweeper = runExpirySweeper(
      planExpirySweep({ tables: ['a', 'b'], batchSize: 10, maxBatchesPerSweep: 2 }, fail),
      { clock: { now: () => 42 } },
      (table, _column, now, limit) => {
        expect(now).toBe(42);
        calls.push(table);
        const left = remaining.get(table) ?? 0;
        const deleted = Math.min(left, limit);
        remaining.set(table, left - deleted);
        return deleted;
      },
    );
    expect(await sweeper.sweepNow()).toBe(23);
    expect(calls).toEqual(['a', 'a', 'b']);
    expect(await sweeper.sweepOnce()).toBe(5);
    await sweeper.stop();
  });

  it('concurrent sweepNow calls share one sweep', async () => {
    let runs = 0;
    const sweeper = runExpirySweeper(planExpirySweep({ tables: ['a'] }, fail), {}, async () => {
      runs += 1;
      return 0;
    });
    await Promise.all([sweeper.sweepNow(), sweeper.sweepNow()]);
    expect(runs).toBe(1);
    await sweeper.stop();
  });
});
