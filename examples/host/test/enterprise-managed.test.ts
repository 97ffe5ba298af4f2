import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Client as ClientV2,
  CrossAppAccessProvider,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyhold } from './cli.js';
import { type HostProcess, startHost } from './host-process.js';
import { type TestIssuer, testIssuer, textOf } from './test-issuer.js';

// A test enterprise IdP (a jose key pair), a client provisioned with `keyhold clients add --grant jwt-bearer`,
// and the built host started with a KEYHOLD_TRUST_POLICIES file that trusts the IdP for that client.
const IDP = 'https://idp.example';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
let dataDir: string;
let host: HostProcess;
let client: { clientId: string; clientSecret: string };
let idp: TestIssuer;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'keyhold-ema-'));
  const first = await startHost({}, dataDir);
  await first.stop();
  const added = await keyhold(['clients', 'add', '--grant', JWT_BEARER, '--name', 'agent', '--json'], {
    KEYHOLD_DATA_DIR: dataDir,
  });
  expect(added.code, added.stderr).toBe(0);
  client = JSON.parse(added.stdout) as { clientId: string; clientSecret: string };
  idp = testIssuer('idp-1');
  const policies = join(dataDir, 'trust-policies.json');
  writeFileSync(
    policies,
    JSON.stringify({
      demo: {
        enterpriseIssuers: [
          { issuer: IDP, jwks: { keys: [idp.publicJwk] }, clients: [client.clientId], scopes: ['mcp:tools'] },
        ],
      },
    }),
  );
  host = await startHost({ KEYHOLD_TRUST_POLICIES: policies }, dataDir);
});

afterAll(async () => {
  await host?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** An ES256 ID-JAG signed by the test IdP (node:crypto: the host's tests have no JOSE library of their own). */
function mintIdJag(sub: string, audience: string, resource: string): string {
  return idp.mint('oauth-id-jag+jwt', {
    iss: IDP,
    sub,
    aud: audience,
    client_id: client.clientId,
    resource,
    scope: 'mcp:tools',
  });
}

describe('the example host redeems an ID-JAG from a trusted IdP through the MCP SDK v2 CrossAppAccessProvider', () => {
  it('advertises the grant and the id-jag profile for the tenant the trust file names', async () => {
    const metadata = (await (
      await fetch(`${host.url}/.well-known/oauth-authorization-server/tenant/demo`)
    ).json()) as Record<string, unknown>;
    expect(metadata.grant_types_supported).toContain(JWT_BEARER);
    expect(metadata.authorization_grant_profiles_supported).toEqual([
      'urn:ietf:params:oauth:grant-profile:id-jag',
    ]);
  });

  it('calls tools as the user the ID-JAG names (sub = the local user id)', async () => {
    const issuer = `${host.url}/tenant/demo`;
    const seen: string[] = [];
    const provider = new CrossAppAccessProvider({
      assertion: async (context) => {
        seen.push(context.authorizationServerUrl);
        return mintIdJag('alice', issuer, context.resourceUrl);
      },
      clientId: client.clientId,
      clientSecret: client.clientSecret,
      expectedIssuer: issuer,
    });
    const mcp = new ClientV2({ name: 'agent', version: '1.0.0' });
    await mcp.connect(new TransportV2(new URL(`${issuer}/mcp`), { authProvider: provider }));
    try {
      const note = `from the enterprise ${randomUUID()}`;
      expect(textOf(await mcp.callTool({ name: 'add_note', arguments: { text: note } }))).toMatch(/^Saved\./);
      expect(textOf(await mcp.callTool({ name: 'list_notes', arguments: {} }))).toContain(note);
    } finally {
      await mcp.close();
    }
    expect(seen.length).toBeGreaterThan(0);
    const tokens = provider.tokens();
    expect(tokens?.refresh_token).toBeUndefined();
    const claims = JSON.parse(
      Buffer.from(String(tokens?.access_token).split('.')[1] as string, 'base64url').toString(),
    );
    expect(claims).toMatchObject({ sub: 'alice', client_id: client.clientId });
  });

  it('refuses an ID-JAG addressed to another authorization server with invalid_grant', async () => {
    const response = await fetch(`${host.url}/tenant/demo/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: JWT_BEARER,
        assertion: mintIdJag('alice', 'https://other-as.example', `${host.url}/tenant/demo/mcp`),
      }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_grant');
  });
});
