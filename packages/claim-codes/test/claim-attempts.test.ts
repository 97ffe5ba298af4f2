import { createManualClock, createMemoryRateLimiter } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import { createClaimAttemptGate } from '../src/claim-attempts.js';
import { createClaims } from '../src/claims.js';
import { ClaimCodesError } from '../src/errors.js';
import { createMemoryClaimStore } from '../src/memory-store.js';

function setup(limit = 3, windowSeconds = 60) {
  const clock = createManualClock(Date.parse('2026-01-01T00:00:00Z'));
  const claims = createClaims({ store: createMemoryClaimStore(), clock });
  const gate = createClaimAttemptGate(claims, {
    limiter: createMemoryRateLimiter(),
    limit,
    windowSeconds,
    clock,
  });
  return { clock, claims, gate };
}

describe('createClaimAttemptGate: a code not known to be valid spends the budget before it is looked up', () => {
  it('admits `limit` unknown codes per principal, then refuses with the seconds left in the window', async () => {
    const { gate, clock } = setup(2);
    clock.advance(15_000);
    expect(await gate.admit('ip:198.51.100.1', 'AAA-AAA')).toEqual({ ok: true, remaining: 1 });
    expect(await gate.admit('ip:198.51.100.1', 'BBB-BBB')).toEqual({ ok: true, remaining: 0 });
    expect(await gate.admit('ip:198.51.100.1', 'CCC-CCC')).toEqual({ ok: false, retryAfterSeconds: 45 });
  });

  it('keeps principals apart', async () => {
    const { gate } = setup(1);
    await gate.admit('sub:alice', 'AAA-AAA');
    expect((await gate.admit('sub:alice', 'BBB-BBB')).ok).toBe(false);
    expect((await gate.admit('sub:bob', 'BBB-BBB')).ok).toBe(true);
  });

  it('opens a new budget when the window turns', async () => {
    const { gate, clock } = setup(1);
    await gate.admit('sub:alice', 'AAA-AAA');
    expect((await gate.admit('sub:alice', 'BBB-BBB')).ok).toBe(false);
    clock.advance(60_000);
    expect((await gate.admit('sub:alice', 'BBB-BBB')).ok).toBe(true);
  });

  it('spends nothing for no code or a malformed one (never looked up)', async () => {
    const { gate } = setup(1);
    for (let i = 0; i < 3; i++) {
      expect((await gate.admit('sub:alice', undefined)).ok).toBe(true);
      expect((await gate.admit('sub:alice', 'O0O-O0O')).ok).toBe(true);
    }
    expect((await gate.admit('sub:alice', 'AAA-AAA')).ok).toBe(true);
  });

  it('spends nothing for a code validated before through gate.claims, until it stops being valid', async () => {
    const { gate, claims, clock } = setup(1);
    const claim = await claims.create({ scopeDir: process.cwd(), ttlSeconds: 3600 });
    expect((await gate.admit('sub:alice', claim.code)).ok).toBe(true);
    expect(await gate.claims.validate(claim.code)).toMatchObject({ ok: true });
    for (let i = 0; i < 5; i++)
      expect((await gate.admit('sub:alice', claim.code.toLowerCase())).ok).toBe(true);
    // Anyone holding a valid code may present it: holding it is the proof.
    expect((await gate.admit('sub:bob', claim.code)).ok).toBe(true);
    await claims.revoke(claim.code);
    expect(await gate.claims.validate(claim.code)).toMatchObject({ ok: false, reason: 'unknown' });
    clock.advance(60_000);
    expect((await gate.admit('sub:carol', claim.code)).ok).toBe(true);
    expect((await gate.admit('sub:carol', claim.code)).ok).toBe(false);
  });

  it('forgets a known code once its claim expires', async () => {
    const { gate, claims, clock } = setup(1);
    const claim = await claims.create({ scopeDir: process.cwd(), ttlSeconds: 60 });
    await gate.claims.validate(claim.code);
    clock.advance(60_000);
    expect((await gate.admit('sub:alice', claim.code)).ok).toBe(true);
    expect((await gate.admit('sub:alice', claim.code)).ok).toBe(false);
  });

  it('refuses concurrent guesses past the budget: the counter is spent before any lookup', async () => {
    const { gate } = setup(5);
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        gate.admit('ip:203.0.113.9', `AB${'CDEFGH'[i % 6]}-${'JKMNPQ'[i % 6]}RS`),
      ),
    );
    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(5);
  });
});

describe('createClaimAttemptGate: options are validated at creation', () => {
  it('refuses something other than a Claims service, before the first code is presented', () => {
    expect(() => createClaimAttemptGate({} as never, { limiter: createMemoryRateLimiter() })).toThrow(
      expect.objectContaining({ name: 'ClaimCodesError', code: 'ERR_INVALID_OPTIONS' }),
    );
  });

  it.each([[{ limit: 0 }], [{ windowSeconds: 1.5 }], [{ maxKnownCodes: 0 }]])(
    'throws ERR_INVALID_OPTIONS for %o',
    (bad) => {
      const claims = createClaims({ store: createMemoryClaimStore() });
      try {
        createClaimAttemptGate(claims, { limiter: createMemoryRateLimiter(), ...bad });
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(ClaimCodesError);
        expect((error as ClaimCodesError).code).toBe('ERR_INVALID_OPTIONS');
      }
    },
  );
});
