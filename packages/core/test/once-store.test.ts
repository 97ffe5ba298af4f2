import { describe, expect, it } from 'vitest';
import { CoreError } from '../src/errors.js';
import { createMemoryOnceStore, onceKey } from '../src/once-store.js';
import { describeOnceStoreConformance } from '../src/testing.js';

describeOnceStoreConformance('memory', () => createMemoryOnceStore());

describe('the memory once store is bounded by maxEntries', () => {
  it('drops expired records first when full', async () => {
    const store = createMemoryOnceStore({ maxEntries: 2 });
    await store.consume('short', 1_000, 0);
    await store.consume('long', 10_000, 0);
    await store.consume('new', 10_000, 2_000);
    expect(await store.consume('long', 10_000, 2_000)).toBe(false);
    expect(await store.consume('new', 10_000, 2_000)).toBe(false);
  });

  it('drops the oldest record when full of live ones', async () => {
    const store = createMemoryOnceStore({ maxEntries: 2 });
    await store.consume('a', 10_000, 0);
    await store.consume('b', 10_000, 0);
    await store.consume('c', 10_000, 0);
    expect(await store.consume('b', 10_000, 0)).toBe(false);
    expect(await store.consume('a', 10_000, 0)).toBe(true);
  });

  it('refuses a maxEntries that is not a positive integer at creation', () => {
    expect(() => createMemoryOnceStore({ maxEntries: 0 })).toThrow(CoreError);
    expect(() => createMemoryOnceStore({ maxEntries: 1.5 })).toThrow('maxEntries');
  });
});

describe('onceKey namespaces ids and bounds their length', () => {
  it('joins the namespace and the parts with colons', () => {
    expect(onceKey('assertion', 'demo', 'client-1', 'jti-1')).toBe('assertion:demo:client-1:jti-1');
  });

  it('encodes every part but the last, so no two tuples share a key', () => {
    expect(onceKey('assertion', 't', 'a:b', 'c')).not.toBe(onceKey('assertion', 't', 'a', 'b:c'));
  });

  it('replaces a key longer than 200 characters by its namespace and SHA-256', () => {
    const key = onceKey('webhook', 'route', 'x'.repeat(500));
    expect(key).toMatch(/^webhook:#[A-Za-z0-9_-]{43}$/);
    expect(key).not.toBe(onceKey('webhook', 'route', 'y'.repeat(500)));
    expect(onceKey('webhook', 'route', 'x'.repeat(500))).toBe(key);
  });
});
