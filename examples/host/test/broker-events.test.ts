import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { useAuthorizedHost } from './authorized-host.js';
import { keyhold } from './cli.js';

const hosted = useAuthorizedHost();
const { provider } = hosted;

interface ListedEvent {
  readonly category: string;
  readonly reason: string;
  readonly status: number;
  readonly clientId?: string;
  readonly userId?: string;
}

/** `keyhold events --user <id> --json`, read until `until` holds (the broker's appends are not awaited). */
async function eventsOf(userId: string, until: (events: ListedEvent[]) => boolean): Promise<ListedEvent[]> {
  for (let attempt = 0; ; attempt++) {
    const run = await keyhold(['events', '--user', userId, '--json'], {
      KEYHOLD_DATA_DIR: hosted.host.dataDir,
    });
    expect(run.code, run.stderr).toBe(0);
    const { events } = JSON.parse(run.stdout) as { events: ListedEvent[] };
    if (until(events) || attempt >= 20) return events;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('a brokered login shows in the decision timeline, keyhold events --user, with its reasons', () => {
  it('lists broker.login_started (with the MCP client), broker.login_completed and a replayed callback as state_unknown, and no code or state', async () => {
    const client = new Client(
      { name: 'broker-events', version: '1.0.0' },
      { capabilities: { elicitation: { url: {} } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${hosted.host.url}/tenant/demo/mcp`), {
        authProvider: provider,
      }),
    );
    const error = (await client
      .callTool({ name: 'who_am_i', arguments: {} })
      .catch((e: unknown) => e)) as McpError & {
      data: { elicitations: { url: string }[] };
    };
    expect(error.code).toBe(-32042);
    const toProvider = await fetch(error.data.elicitations[0]!.url, { redirect: 'manual' });
    const toCallback = await fetch(new URL(toProvider.headers.get('location')!), { redirect: 'manual' });
    const callback = new URL(toCallback.headers.get('location')!);
    expect((await fetch(callback)).status).toBe(200);
    expect((await fetch(callback)).status).toBe(400);
    await client.close();

    const clientId = String(provider.information?.client_id);
    const events = await eventsOf('owner', (listed) =>
      listed.some((event) => event.reason === 'broker.login_failed.state_unknown'),
    );
    const broker = events.filter((event) => event.category === 'broker');
    // Newest first, like every timeline listing.
    expect(broker.map((event) => [event.reason, event.status])).toEqual([
      ['broker.login_failed.state_unknown', 400],
      ['broker.login_completed', 200],
      ['broker.login_started', 401],
    ]);
    expect(broker.at(-1)).toMatchObject({ clientId, userId: 'owner' });
    // The same timeline holds the authorization server's own decisions for this user.
    expect(events.some((event) => event.category !== 'broker')).toBe(true);
    const listed = JSON.stringify(events);
    for (const secret of [callback.searchParams.get('code')!, callback.searchParams.get('state')!]) {
      expect(listed).not.toContain(secret);
    }

    const table = await keyhold(['events', '--user', 'owner'], { KEYHOLD_DATA_DIR: hosted.host.dataDir });
    expect(table.stdout).toMatch(/broker\s+broker\.login_completed\s+200/);
  });
});
