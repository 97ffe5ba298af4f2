import { describe, expect, it } from 'vitest';
import { CoreError } from '../src/errors.js';
import { createMemoryOnceStore } from '../src/once-store.js';
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
