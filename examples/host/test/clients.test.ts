import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listToolsWithBearer } from '../../../test-support/mcp-tools-list.js';
import { keyhold } from './cli.js';
import { type HostProcess, startHost } from './host-process.js';

let host: HostProcess;
beforeAll(async () => {
  // `keyhold clients remove` is another process: without the client cache its effect is immediate, which
  // the test below checks (with the default 5 s cache it would take up to 5 s, see the README).
  host = await startHost({ KEYHOLD_CLIENT_CACHE_TTL_SECONDS: '0' });
});
afterAll(async () => {
  await host?.stop({ removeData: true });
});

const clientCredentials = (clientId: string, secret: string) =>
  fetch(`${host.url}/tenant/demo/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`,
    },
    body: 'grant_type=client_credentials&scope=profile',
  });

describe('keyhold clients: the host provisions machine clients that anonymous registration refuses', () => {
  it('anonymous registration of a client_credentials client is refused with invalid_client_metadata', async () => {
    const response = await fetch(`${host.url}/tenant/demo/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_types: ['client_credentials'] }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_client_metadata');
  });

  it('add → the client takes a client_credentials token; list shows it; remove → the client is unknown', async () => {
    const env = { KEYHOLD_DATA_DIR: host.dataDir };
    const added = await keyhold(
      [
        'clients',
        'add',
        '--grant',
        'client_credentials',
        '--name',
        'nightly report',
        '--scope',
        'profile',
        '--json',
      ],
      env,
    );
    expect(added.code, added.stderr).toBe(0);
    const client = JSON.parse(added.stdout) as {
      clientId: string;
      clientSecret: string;
      registration: string;
    };
    expect(client.registration).toBe('provisioned');
    expect(client.clientSecret).toMatch(/^[A-Za-z0-9_-]{20,}$/);

    const token = await clientCredentials(client.clientId, client.clientSecret);
    expect(token.status).toBe(200);
    const { access_token: accessToken } = (await token.json()) as { access_token: string };

    // A machine token is no user: the MCP endpoint refuses it.
    const mcp = await listToolsWithBearer(`${host.url}/tenant/demo/mcp`, accessToken);
    expect([401, 403]).toContain(mcp.status);

    const listed = await keyhold(['clients', 'list', '--json'], env);
    expect(listed.code, listed.stderr).toBe(0);
    const { clients } = JSON.parse(listed.stdout) as { clients: { clientId: string; clientName?: string }[] };
    expect(clients.find((c) => c.clientId === client.clientId)?.clientName).toBe('nightly report');
    // The secret is shown once, never listed.
    expect(listed.stdout).not.toContain(client.clientSecret);

    const removed = await keyhold(['clients', 'remove', client.clientId], env);
    expect(removed.code, removed.stderr).toBe(0);
    expect((await clientCredentials(client.clientId, client.clientSecret)).status).toBe(401);
    const again = await keyhold(['clients', 'remove', client.clientId], env);
    expect(again.code).toBe(1);
  });

  it('refuses bad input with exit code 2 and a message, and a missing database with exit code 1', async () => {
    const env = { KEYHOLD_DATA_DIR: host.dataDir };
    const noGrant = await keyhold(['clients', 'add'], env);
    expect(noGrant.code).toBe(2);
    expect(noGrant.stderr).toContain('--grant');
    const badGrant = await keyhold(['clients', 'add', '--grant', 'implicit'], env);
    expect(badGrant.code).toBe(2);
    const nowhere = await keyhold(['clients', 'list'], { KEYHOLD_DATA_DIR: `${host.dataDir}/missing` });
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toContain('keyhold.db');
  });
});
