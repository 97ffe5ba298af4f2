import { describe, expect, it } from 'vitest';
import type { AuthEvent, OAuthStorage } from '../storage.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const FAR = { maxEventsPerTenant: 1000, notBefore: 0 };

function uniqueTenant(): string {
  return `events-${Math.random().toString(36).slice(2, 10)}`;
}

function event(tenant: string, at: number, overrides: Partial<AuthEvent> = {}): AuthEvent {
  return { at, tenant, category: 'token', reason: 'token.issued', status: 200, ...overrides };
}

/**
 * The decision timeline's rules, for a storage with `events` (part of the OAuth storage conformance suite):
 * a tenant's events come back newest first, filtered by client, user and time, and an append keeps the
 * tenant within its size and age bounds (anonymous events bounded apart from a subject's).
 */
export function describeEventStoreConformance(makeStorage: () => OAuthStorage | Promise<OAuthStorage>): void {
  describe('decision timeline (events)', () => {
    async function store() {
      const storage = await makeStorage();
      if (storage.events === undefined) throw new Error('this storage keeps no events');
      return storage.events;
    }

    it('keeps every field of an event and returns a tenant’s events newest first', async () => {
      const events = await store();
      const tenant = uniqueTenant();
      const full = event(tenant, NOW, {
        category: 'resource',
        reason: 'token.rejected.grant_revoked',
        status: 401,
        errorCode: 'invalid_token',
        grantType: 'refresh_token',
        clientId: 'https://app.example/client.json',
        userId: 'alice',
        grantId: 'g-1',
      });
      await events.append(full, FAR);
      await events.append(event(tenant, NOW + 1), FAR);
      await events.append(event(uniqueTenant(), NOW + 2), FAR);
      const listed = await events.list(tenant, { limit: 10 });
      expect(listed).toEqual([event(tenant, NOW + 1), full]);
    });

    it('filters by client, by user and by time, and stops at the limit', async () => {
      const events = await store();
      const tenant = uniqueTenant();
      await events.append(event(tenant, NOW, { clientId: 'a', userId: 'u1' }), FAR);
      await events.append(event(tenant, NOW + 10, { clientId: 'b', userId: 'u1' }), FAR);
      await events.append(event(tenant, NOW + 20, { clientId: 'a', userId: 'u2' }), FAR);
      const ats = (list: readonly AuthEvent[]) => list.map((e) => e.at - NOW);
      expect(ats(await events.list(tenant, { clientId: 'a', limit: 10 }))).toEqual([20, 0]);
      expect(ats(await events.list(tenant, { userId: 'u1', limit: 10 }))).toEqual([10, 0]);
      expect(ats(await events.list(tenant, { clientId: 'a', userId: 'u2', limit: 10 }))).toEqual([20]);
      expect(ats(await events.list(tenant, { since: NOW + 10, limit: 10 }))).toEqual([20, 10]);
      expect(ats(await events.list(tenant, { limit: 2 }))).toEqual([20, 10]);
    });

    it('keeps at most maxEventsPerTenant events of a tenant, dropping the oldest, and other tenants untouched', async () => {
      const events = await store();
      const tenant = uniqueTenant();
      const other = uniqueTenant();
      await events.append(event(other, NOW), FAR);
      for (let i = 0; i < 5; i += 1) {
        await events.append(event(tenant, NOW + i), { maxEventsPerTenant: 3, notBefore: 0 });
      }
      expect((await events.list(tenant, { limit: 10 })).map((e) => e.at - NOW)).toEqual([4, 3, 2]);
      expect(await events.list(other, { limit: 10 })).toHaveLength(1);
    });

    it('bounds anonymous events apart, so a flood of them leaves the subject events of the tenant intact', async () => {
      const events = await store();
      const tenant = uniqueTenant();
      const limits = { maxEventsPerTenant: 4, maxAnonymousEventsPerTenant: 3, notBefore: 0 };
      await events.append(event(tenant, NOW, { userId: 'alice', clientId: 'app' }), limits);
      await events.append(event(tenant, NOW + 1, { userId: 'alice', clientId: 'app' }), limits);
      const refusal = { category: 'token', reason: 'request.invalid_client', status: 401 } as const;
      for (let i = 0; i < 20; i += 1) {
        await events.append(event(tenant, NOW + 10 + i, refusal), { ...limits, anonymous: true });
      }
      expect((await events.list(tenant, { userId: 'alice', limit: 10 })).map((e) => e.at - NOW)).toEqual([
        1, 0,
      ]);
      const all = await events.list(tenant, { limit: 100 });
      expect(all.map((e) => e.at - NOW)).toEqual([29, 28, 27, 1, 0]);
      // The subject part keeps its own bound: more subject events push out only the oldest subject ones.
      for (let i = 0; i < 4; i += 1) {
        await events.append(event(tenant, NOW + 100 + i, { userId: 'bob' }), limits);
      }
      expect((await events.list(tenant, { limit: 100 })).map((e) => e.at - NOW)).toEqual([
        103, 102, 101, 100, 29, 28, 27,
      ]);
    });

    it('counts every event against maxEventsPerTenant when no anonymous bound is given (the earlier contract)', async () => {
      const events = await store();
      const tenant = uniqueTenant();
      for (let i = 0; i < 5; i += 1) {
        await events.append(event(tenant, NOW + i), { maxEventsPerTenant: 3, notBefore: 0, anonymous: true });
      }
      expect((await events.list(tenant, { limit: 10 })).map((e) => e.at - NOW)).toEqual([4, 3, 2]);
    });

    it('drops events older than notBefore when appending', async () => {
      const events = await store();
      const tenant = uniqueTenant();
      await events.append(event(tenant, NOW), FAR);
      await events.append(event(tenant, NOW + 100), { maxEventsPerTenant: 1000, notBefore: NOW + 50 });
      expect((await events.list(tenant, { limit: 10 })).map((e) => e.at - NOW)).toEqual([100]);
    });
  });
}
