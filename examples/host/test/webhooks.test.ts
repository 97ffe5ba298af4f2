import { join } from 'node:path';
import { openSqliteDatabase } from '@keyhold/store-sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostProcess, startHost } from './host-process.js';

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('webhooks of the host without SVC_WEBHOOK_SECRET', () => {
  let host: HostProcess;
  beforeAll(async () => {
    host = await startHost();
  });
  afterAll(async () => {
    await host?.stop({ removeData: true });
  });

  it('reaches a handle* method with the body fields', async () => {
    const response = await post(`${host.url}/webhook/notes/handleIncoming`, { text: 'from a webhook' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, result: { accepted: true, count: 1 } });
  });

  it('reaches an @webhook method at its custom two-segment path', async () => {
    const response = await post(`${host.url}/webhook/activity/github/push`, {
      ref: 'refs/heads/main',
      repository: { full_name: 'a/b' },
    });
    expect(await response.json()).toEqual({ ok: true, result: { recorded: 1 } });
  });

  it('keeps a note to the 10000 characters the add_note tool allows, and a push event to short fields', async () => {
    const response = await post(`${host.url}/webhook/notes/handleIncoming`, { text: 'x'.repeat(20_000) });
    expect(await response.json()).toEqual({ ok: true, result: { accepted: true, count: 2 } });
    const push = await post(`${host.url}/webhook/activity/github/push`, {
      ref: 'r'.repeat(1_000),
      repository: { full_name: 'a/b' },
    });
    expect(await push.json()).toEqual({ ok: true, result: { recorded: 2 } });
    // What the host keeps, read from its SQLite file.
    const db = openSqliteDatabase(join(host.dataDir, 'keyhold.db'));
    const kept = (collection: string) =>
      (
        db
          .prepare('SELECT value FROM keyhold_host_records WHERE collection = ? ORDER BY id')
          .all(collection) as { value: string }[]
      ).map((row) => JSON.parse(row.value));
    expect(kept('notes').map((note: { text: string }) => note.text.length)).toEqual([14, 10_000]);
    expect(kept('activity.pushes')[1]).toEqual({ repository: 'a/b', ref: 'r'.repeat(256) });
    db.close();
  });

  it('does not expose a method that is neither tagged nor handle*', async () => {
    expect((await post(`${host.url}/webhook/activity/whoAmI`, {})).status).toBe(404);
  });

  it('warns at start that webhooks are unauthenticated', () => {
    expect(host.output()).toContain('SVC_WEBHOOK_SECRET');
  });
});

describe('webhooks of the host with SVC_WEBHOOK_SECRET set', () => {
  let host: HostProcess;
  beforeAll(async () => {
    host = await startHost({ SVC_WEBHOOK_SECRET: 'wh-secret-for-tests' });
  });
  afterAll(async () => {
    await host?.stop({ removeData: true });
  });

  it('refuses a request without X-Webhook-Secret with 401', async () => {
    expect((await post(`${host.url}/webhook/notes/handleIncoming`, { text: 'x' })).status).toBe(401);
  });

  it('refuses a wrong secret with 401', async () => {
    const response = await post(
      `${host.url}/webhook/notes/handleIncoming`,
      { text: 'x' },
      { 'X-Webhook-Secret': 'wrong' },
    );
    expect(response.status).toBe(401);
  });

  it('accepts the right secret', async () => {
    const response = await post(
      `${host.url}/webhook/notes/handleIncoming`,
      { text: 'x' },
      { 'X-Webhook-Secret': 'wh-secret-for-tests' },
    );
    expect(response.status).toBe(200);
  });
});
