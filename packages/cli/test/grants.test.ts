import { beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_ID, keyhold, requireBuiltCli, USER, withHost } from './support/cli-host.js';

// The CLI runs as a real child process from its build output, against a real SQLite file that an
// authorization server in this process writes to, as the example host and the command share keyhold.db.
beforeAll(requireBuiltCli);

describe('keyhold grants list: each grant with its id, client id, scopes and times', () => {
  it('lists a grant a code flow created, filtered by user and by client, as JSON and as a table', async () => {
    await withHost('grants', async (h) => {
      await h.signIn();
      const [grant] = await h.server.grants.list('demo');
      const listed = await keyhold(['grants', 'list', '--json'], h.cwd);
      expect(listed.code, listed.stderr).toBe(0);
      expect(JSON.parse(listed.stdout)).toEqual({
        grants: [
          {
            grantId: grant?.grantId,
            clientId: CLIENT_ID,
            userId: USER,
            kind: 'authorization_code',
            scopes: ['mcp:tools'],
            resources: [],
            offlineAccess: true,
            createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
            lastUsedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          },
        ],
      });
      const byUser = await keyhold(['grants', 'list', '--user', USER, '--json'], h.cwd);
      expect(JSON.parse(byUser.stdout).grants).toHaveLength(1);
      const byOther = await keyhold(['grants', 'list', '--client', 'someone-else', '--json'], h.cwd);
      expect(JSON.parse(byOther.stdout)).toEqual({ grants: [] });
      const table = await keyhold(['grants', 'list'], h.cwd);
      expect(table.code).toBe(0);
      expect(table.stdout).toContain('GRANT ID');
      expect(table.stdout).toContain(String(grant?.grantId));
      expect(table.stdout).toContain('mcp:tools');
    });
  });
});

describe('keyhold grants revoke: the grant ends and its tokens are refused at the next request', () => {
  it('revokes the grant the server issued a token under; the token is refused, the list shows it with --all', async () => {
    await withHost('grants', async (h) => {
      const accessToken = await h.signIn();
      expect(await h.accepted(accessToken)).toBe(true);
      const [grant] = await h.server.grants.list('demo');
      const revoked = await keyhold(['grants', 'revoke', String(grant?.grantId)], h.cwd);
      expect(revoked.code, revoked.stderr).toBe(0);
      expect(revoked.stdout).toContain(`Revoked grant ${grant?.grantId}`);
      expect(await h.accepted(accessToken)).toBe(false);
      expect(JSON.parse((await keyhold(['grants', 'list', '--json'], h.cwd)).stdout)).toEqual({ grants: [] });
      const all = JSON.parse((await keyhold(['grants', 'list', '--all', '--json'], h.cwd)).stdout);
      expect(all.grants[0]).toMatchObject({ grantId: grant?.grantId, revokedReason: 'admin' });
    });
  });

  it('an unknown grant id fails with exit 1 and says so', async () => {
    await withHost('grants', async (h) => {
      const run = await keyhold(['grants', 'revoke', 'no-such-grant', '--json'], h.cwd);
      expect(run.code).toBe(1);
      expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'unknown_grant' } });
    });
  });

  it('without a grant id it is a usage error (exit 2)', async () => {
    await withHost('grants', async (h) => {
      const run = await keyhold(['grants', 'revoke'], h.cwd);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('Missing the grant id to revoke');
    });
  });
});

describe('keyhold clients block|unblock: a blocked client is refused, its tokens too', () => {
  it('block revokes the grants (printing the count) and authorize names the client as blocked; unblock lifts it', async () => {
    await withHost('grants', async (h) => {
      const accessToken = await h.signIn();
      const blocked = await keyhold(['clients', 'block', CLIENT_ID, '--json'], h.cwd);
      expect(blocked.code, blocked.stderr).toBe(0);
      expect(JSON.parse(blocked.stdout)).toEqual({ blocked: true, clientId: CLIENT_ID, revokedGrants: 1 });
      expect(await h.accepted(accessToken)).toBe(false);
      const page = await h.authorize().response;
      expect(page.status).toBe(403);
      expect(page.headers.get('location')).toBeNull();
      expect(await page.text()).toContain(`&quot;${CLIENT_ID}&quot; is blocked`);

      const unblocked = await keyhold(['clients', 'unblock', CLIENT_ID], h.cwd);
      expect(unblocked.code, unblocked.stderr).toBe(0);
      expect(unblocked.stdout).toContain(`Unblocked client ${CLIENT_ID}`);
      expect(await h.accepted(await h.signIn())).toBe(true);
      const again = await keyhold(['clients', 'unblock', CLIENT_ID], h.cwd);
      expect(again.code).toBe(1);
    });
  });

  it('blocks a metadata-document client id the host has never seen', async () => {
    await withHost('grants', async (h) => {
      const run = await keyhold(['clients', 'block', 'https://app.example/client.json'], h.cwd);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('Blocked client https://app.example/client.json; revoked 0 grants.');
    });
  });
});
