import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeRequestUrl } from '../../../test-support/code-request-url.js';
import { listToolsWithBearer } from '../../../test-support/mcp-tools-list.js';
import { keyhold } from './cli.js';
import { type HostProcess, startHost } from './host-process.js';
import { authorizeMcpClient, TestOAuthProvider } from './oauth-client.js';

let host: HostProcess;
beforeAll(async () => {
  host = await startHost();
});
afterAll(async () => {
  await host?.stop({ removeData: true });
});

const mcpUrl = (): URL => new URL(`${host.url}/tenant/demo/mcp`);

/** One MCP request with a bearer token, as a client that does not refresh would make it. */
const listTools = (accessToken: string): Promise<Response> => listToolsWithBearer(mcpUrl(), accessToken);

function refresh(clientId: string, refreshToken: string): Promise<Response> {
  return fetch(`${host.url}/tenant/demo/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: clientId,
    }).toString(),
  });
}

interface ListedGrant {
  readonly grantId: string;
  readonly clientId: string;
  readonly scopes: readonly string[];
}

async function grantsOf(clientId: string): Promise<ListedGrant[]> {
  const run = await keyhold(['grants', 'list', '--client', clientId, '--json'], {
    KEYHOLD_DATA_DIR: host.dataDir,
  });
  expect(run.code, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as { grants: ListedGrant[] }).grants;
}

/** A real MCP client's whole OAuth dance against the host process: its client id and tokens. */
async function connectedClient() {
  const provider = new TestOAuthProvider('http://127.0.0.1:1/callback');
  await authorizeMcpClient(mcpUrl(), provider);
  const clientId = String(provider.information?.client_id);
  const tokens = provider.savedTokens;
  if (tokens?.refresh_token === undefined) throw new Error('no refresh token');
  return { clientId, accessToken: tokens.access_token, refreshToken: tokens.refresh_token };
}

describe('end to end: a grant revoked with `keyhold grants revoke` is refused at the next MCP request', () => {
  it('code flow → the grant is listed with its client and scopes → revoke → the unexpired token gets 401, refresh fails', async () => {
    const { clientId, accessToken, refreshToken } = await connectedClient();
    expect((await listTools(accessToken)).status).toBe(200);
    const [grant, ...others] = await grantsOf(clientId);
    expect(others).toEqual([]);
    expect(grant).toMatchObject({ clientId, scopes: expect.arrayContaining(['mcp:tools']) });

    const revoked = await keyhold(['grants', 'revoke', String(grant?.grantId)], {
      KEYHOLD_DATA_DIR: host.dataDir,
    });
    expect(revoked.code, revoked.stderr).toBe(0);

    const refused = await listTools(accessToken);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const refreshed = await refresh(clientId, refreshToken);
    expect(refreshed.status).toBe(400);
    expect(((await refreshed.json()) as { error: string }).error).toBe('invalid_grant');
  });
});

describe('end to end: `keyhold clients block` refuses a client at authorize, refresh and the MCP endpoint', () => {
  it('blocks one client while another keeps working; unblock lets it sign in again', async () => {
    const blocked = await connectedClient();
    const other = await connectedClient();
    const env = { KEYHOLD_DATA_DIR: host.dataDir };
    const run = await keyhold(['clients', 'block', blocked.clientId, '--json'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ blocked: true, revokedGrants: 1 });

    expect((await listTools(blocked.accessToken)).status).toBe(401);
    expect(
      ((await (await refresh(blocked.clientId, blocked.refreshToken)).json()) as { error: string }).error,
    ).toBe('invalid_grant');
    const authorize = codeRequestUrl(
      `${host.url}/tenant/demo/authorize`,
      blocked.clientId,
      'http://127.0.0.1:1/callback',
    );
    const page = await fetch(authorize, { redirect: 'manual' });
    expect(page.status).toBe(403);
    expect(page.headers.get('location')).toBeNull();
    expect(await page.text()).toContain(`&quot;${blocked.clientId}&quot; is blocked`);

    expect((await listTools(other.accessToken)).status).toBe(200);

    expect((await keyhold(['clients', 'unblock', blocked.clientId], env)).code).toBe(0);
    expect((await fetch(authorize, { redirect: 'manual' })).status).toBe(302);
  });
});
