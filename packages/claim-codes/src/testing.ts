import { describe, expect, it } from 'vitest';
import type { ClaimRecord, ClaimStore } from './storage.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');

function record(code: string, overrides: Partial<ClaimRecord> = {}): ClaimRecord {
  return { code, scopeDir: '/workspace/proj', createdAt: T0, expiresAt: T0 + 3_600_000, ...overrides };
}

/**
 * The conformance suite every {@link ClaimStore} passes: run it from a store's test file with a factory
 * that returns a fresh, empty store for each test. It uses only the interface.
 *
 * @example
 * ```ts
 * import { describeClaimStoreConformance } from '@keyhold/claim-codes/testing';
 * describeClaimStoreConformance('sqlite claim store', async () => createSqliteClaimStore(await freshDb()));
 * ```
 */
export function describeClaimStoreConformance(
  name: string,
  makeStore: () => ClaimStore | Promise<ClaimStore>,
): void {
  describe(`ClaimStore conformance: ${name}`, () => {
    describe('insert and get', () => {
      it('returns an inserted record as it was given', async () => {
        const store = await makeStore();
        const given = record('ABCDEF', { label: 'review bot' });
        expect(await store.insert(given)).toBe(true);
        expect(await store.get('ABCDEF')).toEqual(given);
      });

      it('omits the label of a record inserted without one', async () => {
        const store = await makeStore();
        await store.insert(record('ABCDEF'));
        const found = await store.get('ABCDEF');
        expect(found).toEqual(record('ABCDEF'));
        expect(found !== undefined && 'label' in found).toBe(false);
      });

      it('answers undefined for a code it does not hold', async () => {
        const store = await makeStore();
        await store.insert(record('ABCDEF'));
        expect(await store.get('ZZZZZZ')).toBeUndefined();
      });

      it('returns an expired record unchanged; deciding validity is the caller’s job', async () => {
        const store = await makeStore();
        const expired = record('ABCDEF', { expiresAt: T0 - 1 });
        await store.insert(expired);
        expect(await store.get('ABCDEF')).toEqual(expired);
      });

      it('refuses a second record with the same code and keeps the first', async () => {
        const store = await makeStore();
        await store.insert(record('ABCDEF', { scopeDir: '/first' }));
        expect(await store.insert(record('ABCDEF', { scopeDir: '/second' }))).toBe(false);
        expect((await store.get('ABCDEF'))?.scopeDir).toBe('/first');
      });

      it('lets exactly one of many concurrent inserts of one code win', async () => {
        const store = await makeStore();
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => store.insert(record('ABCDEF', { scopeDir: `/dir/${i}` }))),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
        const winner = results.indexOf(true);
        expect((await store.get('ABCDEF'))?.scopeDir).toBe(`/dir/${winner}`);
      });

      it('keeps every one of many concurrent inserts of different codes', async () => {
        const store = await makeStore();
        const codes = Array.from({ length: 20 }, (_, i) => `ABC${'DEFGHJKMNPQRSTUVWXYZ'[i]}ZZ`);
        const results = await Promise.all(codes.map((code) => store.insert(record(code))));
        expect(results.every(Boolean)).toBe(true);
        expect((await store.list()).map((r) => r.code).sort()).toEqual([...codes].sort());
      });
    });

    describe('list', () => {
      it('answers an empty list for an empty store', async () => {
        const store = await makeStore();
        expect(await store.list()).toEqual([]);
      });

      it('returns every record, expired ones included', async () => {
        const store = await makeStore();
        await store.insert(record('AAAAAA', { expiresAt: T0 - 1 }));
        await store.insert(record('BBBBBB', { label: 'b' }));
        const listed = await store.list();
        expect(listed.sort((a, b) => a.code.localeCompare(b.code))).toEqual([
          record('AAAAAA', { expiresAt: T0 - 1 }),
          record('BBBBBB', { label: 'b' }),
        ]);
      });
    });

    describe('delete', () => {
      it('removes a record and answers true once, then false', async () => {
        const store = await makeStore();
        await store.insert(record('ABCDEF'));
        expect(await store.delete('ABCDEF')).toBe(true);
        expect(await store.get('ABCDEF')).toBeUndefined();
        expect(await store.delete('ABCDEF')).toBe(false);
      });

      it('answers false for a code it never held', async () => {
        const store = await makeStore();
        expect(await store.delete('ZZZZZZ')).toBe(false);
      });

      it('lets exactly one of many concurrent deletes of one code answer true', async () => {
        const store = await makeStore();
        await store.insert(record('ABCDEF'));
        const results = await Promise.all(Array.from({ length: 20 }, () => store.delete('ABCDEF')));
        expect(results.filter(Boolean)).toHaveLength(1);
      });

      it('leaves other records alone', async () => {
        const store = await makeStore();
        await store.insert(record('AAAAAA'));
        await store.insert(record('BBBBBB'));
        await store.delete('AAAAAA');
        expect((await store.list()).map((r) => r.code)).toEqual(['BBBBBB']);
      });
    });

    describe('deleteExpired', () => {
      it('removes records whose expiresAt is at or before now, and counts them', async () => {
        const store = await makeStore();
        await store.insert(record('AAAAAA', { expiresAt: T0 - 1 }));
        await store.insert(record('BBBBBB', { expiresAt: T0 }));
        await store.insert(record('CCCCCC', { expiresAt: T0 + 1 }));
        expect(await store.deleteExpired(T0)).toBe(2);
        expect((await store.list()).map((r) => r.code)).toEqual(['CCCCCC']);
      });

      it('answers 0 and keeps everything when nothing has expired', async () => {
        const store = await makeStore();
        await store.insert(record('AAAAAA'));
        expect(await store.deleteExpired(T0)).toBe(0);
        expect(await store.list()).toHaveLength(1);
      });

      it('frees an expired code for a new insert', async () => {
        const store = await makeStore();
        await store.insert(record('ABCDEF', { expiresAt: T0 - 1 }));
        await store.deleteExpired(T0);
        expect(await store.insert(record('ABCDEF', { scopeDir: '/new' }))).toBe(true);
        expect((await store.get('ABCDEF'))?.scopeDir).toBe('/new');
      });
    });
  });
}
