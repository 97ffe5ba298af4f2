import type { AuthEvent, AuthEventStore } from '../storage.js';

/**
 * The decision timeline in memory: per tenant, in order of arrival; each append drops what its limits say
 * is too old or too many, so a tenant never holds more than `maxEventsPerTenant` events.
 */
export function createMemoryEventStore(): AuthEventStore {
  const byTenant = new Map<string, AuthEvent[]>();
  return {
    async append(event, limits) {
      let events = byTenant.get(event.tenant);
      if (events === undefined) {
        events = [];
        byTenant.set(event.tenant, events);
      }
      events.push({ ...event });
      let stale = 0;
      while (stale < events.length && events[stale]!.at < limits.notBefore) stale += 1;
      const excess = Math.max(stale, events.length - limits.maxEventsPerTenant);
      if (excess > 0) events.splice(0, excess);
    },
    async list(tenant, query) {
      const events = byTenant.get(tenant) ?? [];
      const found: AuthEvent[] = [];
      for (let i = events.length - 1; i >= 0 && found.length < query.limit; i -= 1) {
        const event = events[i]!;
        if (query.since !== undefined && event.at < query.since) continue;
        if (query.clientId !== undefined && event.clientId !== query.clientId) continue;
        if (query.userId !== undefined && event.userId !== query.userId) continue;
        found.push({ ...event });
      }
      return found;
    },
  };
}
