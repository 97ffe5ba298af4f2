import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createManualClock } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import { createClaims } from '../../src/claims.js';
import { formatClaimCode } from '../../src/code.js';
import { createClaimSession } from '../../src/mcp/claim-session.js';
import { createMemoryClaimStore } from '../../src/memory-store.js';

const scopeDir = realpathSync(mkdtempSync(join(tmpdir(), 'claim-session-')));

function setup(requireClaimCode?: boolean) {
  const clock = createManualClock();
  const claims = createClaims({ store: createMemoryClaimStore(), clock });
  const session = createClaimSession({
    claims,
    ...(requireClaimCode === undefined ? {} : { requireClaimCode }),
  });
  return { clock, claims, session };
}

describe('claim session: the code a session presented, validated on every resolve', () => {
  it('is unscoped before any code is presented', async () => {
    expect(await setup().session.resolve()).toEqual({ kind: 'unscoped', reason: 'no_code' });
  });

  it('is scoped to the claim directory while the code is valid', async () => {
    const { claims, session } = setup();
    const claim = await claims.create({ scopeDir });
    session.present(formatClaimCode(claim.code));
    expect(await session.resolve()).toEqual({ kind: 'scoped', scopeDir, expiresAt: claim.expiresAt });
  });

  it('keeps the code when a later request carries none', async () => {
    const { claims, session } = setup();
    session.present((await claims.create({ scopeDir })).code);
    session.present(undefined);
    expect((await session.resolve()).kind).toBe('scoped');
  });

  it('replaces the code when a later request carries another one', async () => {
    const { claims, session } = setup();
    session.present((await claims.create({ scopeDir })).code);
    session.present('ZZZ-ZZZ');
    expect(await session.resolve()).toEqual({ kind: 'unscoped', reason: 'unknown' });
  });

  it('loses the scope at once when the code is revoked or expires', async () => {
    const { claims, clock, session } = setup();
    const claim = await claims.create({ scopeDir, ttlSeconds: 60 });
    session.present(claim.code);
    clock.advance(60_000);
    expect(await session.resolve()).toEqual({ kind: 'unscoped', reason: 'expired' });
    const second = await claims.create({ scopeDir });
    session.present(second.code);
    await claims.revoke(second.code);
    expect(await session.resolve()).toEqual({ kind: 'unscoped', reason: 'unknown' });
  });

  it('reports malformed input as unscoped', async () => {
    const { session } = setup();
    session.present('AB0-DEF');
    expect(await session.resolve()).toEqual({ kind: 'unscoped', reason: 'malformed' });
  });

  it('refuses instead of widening when requireClaimCode is set', async () => {
    const { claims, session } = setup(true);
    expect(await session.resolve()).toEqual({ kind: 'refused', reason: 'no_code' });
    const claim = await claims.create({ scopeDir });
    session.present(claim.code);
    expect((await session.resolve()).kind).toBe('scoped');
    await claims.revoke(claim.code);
    expect(await session.resolve()).toEqual({ kind: 'refused', reason: 'unknown' });
  });
});
