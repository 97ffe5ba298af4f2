import { mkdtempSync, realpathSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createManualClock } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import { createClaims } from '../src/claims.js';
import { formatClaimCode } from '../src/code.js';
import { ClaimCodesError } from '../src/errors.js';
import { createMemoryClaimStore } from '../src/memory-store.js';
import type { ClaimStore } from '../src/storage.js';

const T0 = Date.parse('2026-06-01T12:00:00Z');
const scope = realpathSync(mkdtempSync(join(tmpdir(), 'claims-scope-')));

function setup() {
  const clock = createManualClock(T0);
  const store = createMemoryClaimStore();
  return { clock, store, claims: createClaims({ store, clock }) };
}

describe('create: a new record per call', () => {
  it('stores a fresh code with the resolved scope, the creation time and a 24-hour default lifetime', async () => {
    const { claims, store } = setup();
    const claim = await claims.create({ scopeDir: scope });
    expect(claim.code).toMatch(/^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{6}$/);
    expect(claim).toEqual({ code: claim.code, scopeDir: scope, createdAt: T0, expiresAt: T0 + 86_400_000 });
    expect(await store.get(claim.code)).toEqual(claim);
  });

  it('resolves the scope through symlinks', async () => {
    const { claims } = setup();
    const link = join(mkdtempSync(join(tmpdir(), 'claims-link-')), 'alias');
    symlinkSync(scope, link);
    expect((await claims.create({ scopeDir: link })).scopeDir).toBe(scope);
  });

  it('takes a lifetime in seconds and a label', async () => {
    const { claims } = setup();
    const claim = await claims.create({ scopeDir: scope, ttlSeconds: 90, label: 'review bot' });
    expect(claim.expiresAt).toBe(T0 + 90_000);
    expect(claim.label).toBe('review bot');
  });

  it('omits an empty label', async () => {
    const { claims } = setup();
    expect('label' in (await claims.create({ scopeDir: scope, label: '' }))).toBe(false);
  });

  it('creates a different code on every call, with no limit on concurrent codes', async () => {
    const { claims } = setup();
    const codes = await Promise.all(Array.from({ length: 50 }, () => claims.create({ scopeDir: scope })));
    expect(new Set(codes.map((c) => c.code)).size).toBe(50);
    expect(await claims.list()).toHaveLength(50);
  });

  it.each([0, -5, 1.5, Number.NaN, 365 * 86_400 + 1])(
    'refuses a lifetime of %s seconds',
    async (ttlSeconds) => {
      const { claims } = setup();
      await expect(claims.create({ scopeDir: scope, ttlSeconds })).rejects.toMatchObject({
        code: 'ERR_INVALID_TTL',
      });
    },
  );

  it('refuses a label with control characters or over 200 characters', async () => {
    const { claims } = setup();
    await expect(claims.create({ scopeDir: scope, label: 'a\u001b[31m' })).rejects.toMatchObject({
      code: 'ERR_INVALID_LABEL',
    });
    await expect(claims.create({ scopeDir: scope, label: 'x'.repeat(201) })).rejects.toMatchObject({
      code: 'ERR_INVALID_LABEL',
    });
  });

  it('refuses a scope that does not exist', async () => {
    const { claims } = setup();
    await expect(claims.create({ scopeDir: join(scope, 'missing') })).rejects.toMatchObject({
      code: 'ERR_INVALID_SCOPE',
    });
  });

  it('gives up with ERR_CODE_COLLISION when the store never accepts a code', async () => {
    const full: ClaimStore = { ...createMemoryClaimStore(), insert: async () => false };
    const claims = createClaims({ store: full });
    await expect(claims.create({ scopeDir: scope })).rejects.toMatchObject({ code: 'ERR_CODE_COLLISION' });
  });
});

describe('validate: valid, expired, unknown or malformed', () => {
  it('accepts the code however it is typed', async () => {
    const { claims } = setup();
    const claim = await claims.create({ scopeDir: scope });
    for (const typed of [
      claim.code,
      formatClaimCode(claim.code),
      ` ${formatClaimCode(claim.code).toLowerCase()} `,
    ]) {
      expect(await claims.validate(typed)).toEqual({ ok: true, claim });
    }
  });

  it('answers unknown for a well-formed code nobody created', async () => {
    const { claims } = setup();
    expect(await claims.validate('abc-def')).toEqual({ ok: false, reason: 'unknown', code: 'ABCDEF' });
  });

  it('answers expired from expiresAt on, and purges the record', async () => {
    const { claims, clock, store } = setup();
    const claim = await claims.create({ scopeDir: scope, ttlSeconds: 60 });
    clock.advance(59_999);
    expect(await claims.validate(claim.code)).toMatchObject({ ok: true });
    clock.advance(1);
    expect(await claims.validate(claim.code)).toEqual({ ok: false, reason: 'expired', code: claim.code });
    expect(await store.get(claim.code)).toBeUndefined();
  });

  it('explains malformed input, naming a lookalike', async () => {
    const { claims } = setup();
    const result = await claims.validate('ABO-DEF');
    expect(result).toMatchObject({ ok: false, reason: 'malformed' });
    if (!result.ok && result.reason === 'malformed') expect(result.message).toContain('"O"');
  });
});

describe('list: active codes only, expired ones purged', () => {
  it('lists active claims soonest expiry first and purges the expired', async () => {
    const { claims, clock, store } = setup();
    const long = await claims.create({ scopeDir: scope, ttlSeconds: 7_200 });
    const short = await claims.create({ scopeDir: scope, ttlSeconds: 600 });
    const gone = await claims.create({ scopeDir: scope, ttlSeconds: 60 });
    clock.advance(60_000);
    expect(await claims.list()).toEqual([short, long]);
    expect(await store.get(gone.code)).toBeUndefined();
  });
});

describe('revoke: immediate', () => {
  it('removes the code so the next validation answers unknown', async () => {
    const { claims } = setup();
    const claim = await claims.create({ scopeDir: scope });
    expect(await claims.revoke(formatClaimCode(claim.code).toLowerCase())).toEqual({
      ok: true,
      claim,
    });
    expect(await claims.validate(claim.code)).toMatchObject({ ok: false, reason: 'unknown' });
  });

  it('answers unknown for a code that does not exist or has expired', async () => {
    const { claims, clock } = setup();
    expect(await claims.revoke('ABCDEF')).toEqual({ ok: false, reason: 'unknown', code: 'ABCDEF' });
    const claim = await claims.create({ scopeDir: scope, ttlSeconds: 1 });
    clock.advance(1_000);
    expect(await claims.revoke(claim.code)).toMatchObject({ ok: false, reason: 'unknown' });
  });

  it('answers malformed for input that cannot be a code', async () => {
    const { claims } = setup();
    expect(await claims.revoke('nope')).toMatchObject({ ok: false, reason: 'malformed' });
  });
});

describe('options are validated at creation', () => {
  it('refuses a default lifetime above the maximum, and non-positive values', () => {
    const store = createMemoryClaimStore();
    expect(() => createClaims({ store, defaultTtlSeconds: 100, maxTtlSeconds: 50 })).toThrow(ClaimCodesError);
    expect(() => createClaims({ store, maxTtlSeconds: 0 })).toThrow(/maxTtlSeconds/);
    expect(() => createClaims({ store, defaultTtlSeconds: -1 })).toThrow(/defaultTtlSeconds/);
  });

  it('refuses a store that is not a ClaimStore, before the first code is created or presented', () => {
    for (const store of [undefined, {}, { ...createMemoryClaimStore(), deleteExpired: undefined }]) {
      expect(() => createClaims({ store } as never)).toThrow(
        expect.objectContaining({ name: 'ClaimCodesError', code: 'ERR_INVALID_OPTIONS' }),
      );
    }
  });

  it('refuses a fractional lifetime', () => {
    expect(() => createClaims({ store: createMemoryClaimStore(), defaultTtlSeconds: 1.5 })).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_OPTIONS' }),
    );
  });
});

describe('resolveScopeDir option: a runtime without a file system brings its own', () => {
  it('stores the directory the given resolver returns, without touching the disk', async () => {
    const seen: string[] = [];
    const claims = createClaims({
      store: createMemoryClaimStore(),
      resolveScopeDir: async (dir) => {
        seen.push(dir);
        return `/virtual${dir}`;
      },
    });
    const created = await claims.create({ scopeDir: '/does/not/exist' });
    expect(seen).toEqual(['/does/not/exist']);
    expect(created.scopeDir).toBe('/virtual/does/not/exist');
  });
});
