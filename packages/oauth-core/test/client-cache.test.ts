import { createManualClock } from '@keyhold/core';
import { sha256Base64url } from '@keyhold/internal';
import { describe, expect, it } from 'vitest';
import { createCachedClientStore } from '../src/client-cache.js';
import type { ClientRecord } from '../src/index.js';
import { createMemoryStorage } from '../src/index.js';
import type { ClientStore } from '../src/storage-entry.js';
import { basic, createTestServer, json, postForm, provisionClient } from './helpers.js';

const T0 = Date.parse('2026-03-01T12:00:00Z');

function record(clientId: string, fields: Partial<ClientRecord> = {}): ClientRecord {
  return {
    clientId,
    redirectUris: [],
    grantTypes: ['client_credentials'],
    responseTypes: [],
    tokenEndpointAuthMethod: 'client_secret_basic',
    clientSecretHash: sha256Base64url('secret'),
    createdAt: T0,
    registration: 'provisioned',
    ...fields,
  };
}

/** A client store that counts reads, over the memory store. */
function counting(): { store: ClientStore; reads: () => number } {
  const inner = createMemoryStorage().clients;
  let reads = 0;
  return {
    store: {
      ...inner,
      get: (tenant, clientId) => {
        reads++;
        return inner.get(tenant, clientId);
      },
    },
    reads: () => reads,
  };
}

describe('client cache: reads are served from memory for at most the TTL', () => {
  it('a read within the TTL (age ≤ TTL) does not reach the store; one after it does', async () => {
    const clock = createManualClock(T0);
    const { store, reads } = counting();
    await store.create('demo', record('c1'));
    const cached = createCachedClientStore(store, { ttlSeconds: 5, clock });
    expect((await cached.get('demo', 'c1'))?.clientId).toBe('c1');
    expect((await cached.get('demo', 'c1'))?.clientId).toBe('c1');
    expect(reads()).toBe(1);
    clock.advance(5_000);
    await cached.get('demo', 'c1');
    expect(reads()).toBe(1);
    clock.advance(1);
    await cached.get('demo', 'c1');
    expect(reads()).toBe(2);
  });

  it('a change made behind its back (another instance) is seen once the TTL has passed', async () => {
    const clock = createManualClock(T0);
    const { store } = counting();
    await store.create('demo', record('c1'));
    const cached = createCachedClientStore(store, { ttlSeconds: 5, clock });
    await cached.get('demo', 'c1');
    await store.delete('demo', 'c1');
    expect(await cached.get('demo', 'c1')).toBeDefined();
    clock.advance(5_001);
    expect(await cached.get('demo', 'c1')).toBeUndefined();
  });

  it('never caches an unknown client, so it is found as soon as it is created elsewhere', async () => {
    const clock = createManualClock(T0);
    const { store, reads } = counting();
    const cached = createCachedClientStore(store, { ttlSeconds: 5, clock });
    expect(await cached.get('demo', 'nobody')).toBeUndefined();
    expect(await cached.get('demo', 'nobody')).toBeUndefined();
    expect(reads()).toBe(2);
    await store.create('demo', record('nobody'));
    expect(await cached.get('demo', 'nobody')).toBeDefined();
  });

  it('keys on the tenant as well as the client id', async () => {
    const clock = createManualClock(T0);
    const { store } = counting();
    await store.create('a', record('c1', { scope: 'in-a' }));
    await store.create('b', record('c1', { scope: 'in-b' }));
    const cached = createCachedClientStore(store, { ttlSeconds: 5, clock });
    expect((await cached.get('a', 'c1'))?.scope).toBe('in-a');
    expect((await cached.get('b', 'c1'))?.scope).toBe('in-b');
  });

  it('ttlSeconds 0 is no cache at all; a negative or fractional TTL is refused', () => {
    const clock = createManualClock(T0);
    const { store } = counting();
    expect(createCachedClientStore(store, { ttlSeconds: 0, clock })).toBe(store);
    expect(() => createCachedClientStore(store, { ttlSeconds: -1, clock })).toThrow(
      expect.objectContaining({
        name: 'OAuthCoreError',
        code: 'ERR_INVALID_OPTIONS',
        message: expect.stringMatching(/clientCacheTtlSeconds/),
      }),
    );
    expect(() => createCachedClientStore(store, { ttlSeconds: 0.5, clock })).toThrow(
      expect.objectContaining({
        name: 'OAuthCoreError',
        code: 'ERR_INVALID_OPTIONS',
        message: expect.stringMatching(/clientCacheTtlSeconds/),
      }),
    );
  });

  it('is bounded: the least recently used client is dropped past maxEntries', async () => {
    const clock = createManualClock(T0);
    const { store, reads } = counting();
    for (const id of ['c1', 'c2', 'c3']) await store.create('demo', record(id));
    const cached = createCachedClientStore(store, { ttlSeconds: 60, clock, maxEntries: 2 });
    await cached.get('demo', 'c1');
    await cached.get('demo', 'c2');
    await cached.get('demo', 'c3');
    expect(reads()).toBe(3);
    await cached.get('demo', 'c3');
    expect(reads()).toBe(3);
    await cached.get('demo', 'c1');
    expect(reads()).toBe(4);
  });
});

describe('client cache: every write through this instance takes effect at once', () => {
  it('delete, create and touch drop the entry, whatever the TTL', async () => {
    const clock = createManualClock(T0);
    const { store } = counting();
    const cached = createCachedClientStore(store, { ttlSeconds: 3600, clock });
    await cached.create('demo', record('c1', { scope: 'old' }));
    expect((await cached.get('demo', 'c1'))?.scope).toBe('old');
    await cached.touch('demo', 'c1', T0 + 1_000);
    expect((await cached.get('demo', 'c1'))?.expiresAt).toBe(T0 + 1_000);
    await cached.delete('demo', 'c1');
    expect(await cached.get('demo', 'c1')).toBeUndefined();
    await cached.create('demo', record('c1', { scope: 'new' }));
    expect((await cached.get('demo', 'c1'))?.scope).toBe('new');
  });

  it('a read that raced with a delete is answered but not cached', async () => {
    const clock = createManualClock(T0);
    const inner = createMemoryStorage().clients;
    await inner.create('demo', record('c1'));
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let slow = true;
    const store: ClientStore = {
      ...inner,
      get: async (tenant, clientId) => {
        const found = await inner.get(tenant, clientId);
        if (slow) await gate;
        return found;
      },
    };
    const cached = createCachedClientStore(store, { ttlSeconds: 3600, clock });
    const read = cached.get('demo', 'c1');
    await cached.delete('demo', 'c1');
    release();
    expect(await read).toBeDefined();
    slow = false;
    expect(await cached.get('demo', 'c1')).toBeUndefined();
  });

  it('a client removed through server.clients is refused at the token endpoint at once', async () => {
    const t = await createTestServer();
    const client = await provisionClient(t.server, { grantTypes: ['client_credentials'] });
    const request = () =>
      t.server.token(
        postForm(
          '/tenant/demo/token',
          { grant_type: 'client_credentials' },
          basic(client.client_id, client.client_secret ?? ''),
        ),
        'demo',
      );
    expect((await request()).status).toBe(200);
    expect((await request()).status).toBe(200);
    expect(await t.server.clients.remove('demo', client.client_id)).toBe(true);
    const refused = await request();
    expect(refused.status).toBe(401);
    expect(json(refused).error).toBe('invalid_client');
  });
});
