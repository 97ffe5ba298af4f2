import type { AuthEvent, AuthEventStore } from '../storage.js';

/** An event as kept: its arrival number orders the two parts of a tenant's timeline when they are merged. */
interface Kept {
  readonly seq: number;
  readonly event: AuthEvent;
}

/** A tenant's timeline: the events naming an authenticated subject, and the anonymous ones, each in arrival order. */
interface TenantTimeline {
  readonly subject: Kept[];
  readonly anonymous: Kept[];
}

/**
 * The decision timeline in memory: per tenant, in order of arrival, in two parts bounded apart (events of an
 * authenticated subject, and anonymous ones); each append drops what its limits say is too old, and the
 * oldest of the appended event's part beyond its bound.
 */
export function createMemoryEventStore(): AuthEventStore {
  const byTenant = new Map<string, TenantTimeline>();
  let seq = 0;
  return {
    async append(event, limits) {
      let timeline = byTenant.get(event.tenant);
      if (timeline === undefined) {
        timeline = { subject: [], anonymous: [] };
        byTenant.set(event.tenant, timeline);
      }
      // Without the anonymous bound (a caller of the earlier contract) every event shares one part.
      const apart = limits.anonymous === true && limits.maxAnonymousEventsPerTenant !== undefined;
      const part = apart ? timeline.anonymous : timeline.subject;
      const max = apart ? (limits.maxAnonymousEventsPerTenant as number) : limits.maxEventsPerTenant;
      seq += 1;
      part.push({ seq, event: { ...event } });
      for (const events of [timeline.subject, timeline.anonymous]) {
        let stale = 0;
        while (stale < events.length && events[stale]!.event.at < limits.notBefore) stale += 1;
        if (stale > 0) events.splice(0, stale);
      }
      if (part.length > max) part.splice(0, part.length - max);
    },
    async list(tenant, query) {
      const timeline = byTenant.get(tenant);
      if (timeline === undefined) return [];
      const { subject, anonymous } = timeline;
      const found: AuthEvent[] = [];
      // Newest first across both parts: a merge of two lists already in arrival order.
      let i = subject.length - 1;
      let j = anonymous.length - 1;
      while ((i >= 0 || j >= 0) && found.length < query.limit) {
        const takeSubject = j < 0 || (i >= 0 && subject[i]!.seq > anonymous[j]!.seq);
        const { event } = takeSubject ? subject[i--]! : anonymous[j--]!;
        if (query.since !== undefined && event.at < query.since) continue;
        if (query.clientId !== undefined && event.clientId !== query.clientId) continue;
        if (query.userId !== undefined && event.userId !== query.userId) continue;
        found.push({ ...event });
      }
      return found;
    },
  };
}
