import type { ServerContext } from '../options.js';
import type { AuthEvent } from '../storage.js';
import type { Tenant } from '../tenant.js';

/** The most events the connected-apps page lists: a glance at what happened lately, not an audit. */
export const RECENT_ACTIVITY_SIZE = 20;

/**
 * The signed-in person's own latest events for the connected-apps page, newest first: `undefined` when the
 * server keeps no timeline, `'unavailable'` when it could not be read. The page still serves the grants
 * then (revoking matters more than the history), and the failure is logged by its name only.
 *
 * @example
 * ```ts
 * const activity = await recentActivity(context, tenant, 'alice');
 * ```
 */
export async function recentActivity(
  context: ServerContext,
  tenant: Tenant,
  userId: string,
): Promise<readonly AuthEvent[] | 'unavailable' | undefined> {
  const store = context.events.store;
  if (store === undefined) return undefined;
  try {
    const events = await store.list(tenant.slug, { userId, limit: RECENT_ACTIVITY_SIZE });
    // The store was asked for this user's events; checked again so a store that ignored the filter can
    // never show a person someone else's history.
    return events.filter((event) => event.userId === userId).slice(0, RECENT_ACTIVITY_SIZE);
  } catch (error) {
    context.logger.warn(
      {
        event: 'timeline_read_failed',
        tenant: tenant.slug,
        error: error instanceof Error ? error.name : typeof error,
      },
      'connected apps: recent activity could not be read',
    );
    return 'unavailable';
  }
}
