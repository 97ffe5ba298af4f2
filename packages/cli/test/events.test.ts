import { beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_ID, keyhold, requireBuiltCli, USER, withHost } from './support/cli-host.js';

// The CLI runs as a real child process from its build output, against a real SQLite file that an
// authorization server in this process writes to, as the example host and the command share keyhold.db.
beforeAll(requireBuiltCli);

/** Lets the timeline appends the server started without waiting settle. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('keyhold events: the decision timeline of a client or a user, each event with its reason', () => {
  it('lists a client’s and a user’s events as JSON and as a table, newest first, never a token', async () => {
    await withHost('events', async (h) => {
      const accessToken = await h.signIn();
      await h.server.verifyAccessToken('demo', 'Bearer not-a-real-token');
      const [grant] = await h.server.grants.list('demo');
      await h.server.grants.revoke('demo', String(grant?.grantId));
      expect(await h.accepted(accessToken)).toBe(false);
      await settled();

      const byClient = await keyhold(['events', '--client', CLIENT_ID, '--json'], h.cwd);
      expect(byClient.code, byClient.stderr).toBe(0);
      const events = JSON.parse(byClient.stdout).events as Record<string, unknown>[];
      expect(events.map((event) => event.reason)).toEqual([
        'token.rejected.grant_revoked',
        'grant.revoked.admin',
        'token.issued',
        'grant.created',
        'authorize.approved',
      ]);
      expect(events[0]).toMatchObject({
        category: 'resource',
        status: 401,
        clientId: CLIENT_ID,
        userId: USER,
        grantId: grant?.grantId,
        at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
      expect(byClient.stdout).not.toContain(accessToken);

      const byUser = await keyhold(['events', '--user', USER, '--since', '1h', '--json'], h.cwd);
      expect(JSON.parse(byUser.stdout).events).toHaveLength(5);
      const other = await keyhold(['events', '--client', 'someone-else', '--json'], h.cwd);
      expect(JSON.parse(other.stdout)).toEqual({ events: [] });

      const table = await keyhold(['events', '--client', CLIENT_ID], h.cwd);
      expect(table.code).toBe(0);
      expect(table.stdout).toContain('REASON');
      expect(table.stdout).toContain('token.rejected.grant_revoked');
      expect(table.stdout).toContain(String(grant?.grantId));
    });
  });

  it('refuses a call without --client or --user, and a malformed --since, with exit 2', async () => {
    await withHost('events', async (h) => {
      const bare = await keyhold(['events'], h.cwd);
      expect(bare.code).toBe(2);
      expect(bare.stderr).toContain('--client');
      const since = await keyhold(['events', '--user', USER, '--since', 'yesterday'], h.cwd);
      expect(since.code).toBe(2);
      expect(since.stderr).toContain('not a duration');
    });
  });
});
