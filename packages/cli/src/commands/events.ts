import type { AuthEvent } from '@keyhold/oauth-core';
import { EXIT } from '../io.js';
import type { Command } from '../main.js';
import { parseDuration } from './claim/duration.js';
import { printable, styleFor } from './claim/render.js';
import { type CommandContext, parse, usage } from './command-context.js';
import { HOST_STORE_OPTIONS, HOST_STORE_OPTIONS_HELP, withHostServer } from './host-server.js';
import { printListing } from './listing.js';

const USAGE = `Usage: keyhold events --client <id> | --user <id> [--since <duration>] [options]

The decision timeline: why a client was refused or a user's application was let in. Each event has its
time, category, reason code (README "Events and reason codes v1.1"), status and the client, user and grant
it concerns; never a token. Newest first. The host keeps at most 10 000 events per tenant for 30 days,
and at most 1 000 more that name no signed-in user or authenticated client (strangers' refusals), unless it
configured other bounds (events.maxEventsPerTenant, events.maxAnonymousEventsPerTenant,
events.retentionSeconds).

Options:
  --client <id>       this client's events (a registered id or a metadata-document URL)
  --user <id>         this user's events
  --since <duration>  only the last 30m, 1h, 7d … (up to 365d)
  --limit <n>         at most n events (default 100, at most 1000)
${HOST_STORE_OPTIONS_HELP}`;

const MAX_SINCE_SECONDS = 365 * 86_400;

/**
 * The `keyhold events` command: `--client <id>` and/or `--user <id>`, `--since <duration>`, `--limit <n>`,
 * `--json`. It opens the host's store like `keyhold grants`. Exit codes: 0 success, 1 the store failed or
 * keeps no timeline, 2 usage error.
 *
 * @example
 * ```ts
 * await runCli(['events', '--client', 'https://app.example/client.json', '--since', '1h'], io, { events: eventsCommand });
 * ```
 */
export const eventsCommand: Command = async (args, io) => {
  const json = args.includes('--json');
  const context: CommandContext = { command: 'events', io, json, style: styleFor(io), now: Date.now() };
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(USAGE);
    return EXIT.ok;
  }
  const parsed = parse(
    args,
    {
      ...HOST_STORE_OPTIONS,
      client: { type: 'string' },
      user: { type: 'string' },
      since: { type: 'string' },
      limit: { type: 'string' },
    },
    0,
    USAGE,
    context,
  );
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  if (values.client === undefined && values.user === undefined) {
    return usage(context, 'name a client (--client <id>) or a user (--user <id>)', USAGE);
  }
  let since: number | undefined;
  if (values.since !== undefined) {
    const duration = parseDuration(values.since, MAX_SINCE_SECONDS);
    if (!duration.ok) return usage(context, duration.message, USAGE);
    since = context.now - duration.seconds * 1000;
  }
  const limit = values.limit === undefined ? 100 : Number(values.limit);
  if (!/^\d+$/.test(values.limit ?? '100') || limit < 1 || limit > 1000) {
    return usage(context, '--limit must be a whole number from 1 to 1000', USAGE);
  }
  return withHostServer(context, values, async (server, tenant) => {
    const events = await server.listEvents(tenant, {
      limit,
      ...(values.client === undefined ? {} : { clientId: values.client }),
      ...(values.user === undefined ? {} : { userId: values.user }),
      ...(since === undefined ? {} : { since }),
    });
    return printListing(context, {
      json: () => ({ events: events.map(describe) }),
      count: events.length,
      empty: `No events in tenant "${tenant}".`,
      table: () => [
        ['TIME', 'CATEGORY', 'REASON', 'STATUS', 'CLIENT ID', 'USER', 'GRANT ID'],
        ...events.map((event) => [
          new Date(event.at).toISOString(),
          event.category,
          printable(event.reason),
          String(event.status),
          printable(event.clientId ?? '-'),
          printable(event.userId ?? '-'),
          printable(event.grantId ?? '-'),
        ]),
      ],
    });
  });
};

function describe(event: AuthEvent): Record<string, unknown> {
  return { ...event, at: new Date(event.at).toISOString() };
}
