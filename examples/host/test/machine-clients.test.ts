import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Client as ClientV2,
  ClientCredentialsProvider as CredentialsV2,
  PrivateKeyJwtProvider as PrivateKeyJwtV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import {
  ClientCredentialsProvider as CredentialsV1,
  PrivateKeyJwtProvider as PrivateKeyJwtV1,
} from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listToolsWithBearer } from '../../../test-support/mcp-tools-list.js';
import { keyhold } from './cli.js';
import { type HostProcess, startHost } from './host-process.js';

// One data directory, two provisioned client_credentials clients (a secret, a private_key_jwt key set), and
// the built host started twice on it:
// without KEYHOLD_MACHINE_CLIENTS and with it. Every token request and MCP status is counted, so a
// step-up loop (a second token after a 403) shows.
let dataDir: string;
let credentials: { clientId: string; clientSecret: string; scope: string };
let signer: { clientId: string; privateKey: Record<string, unknown>; algorithm: 'ES256'; scope: string };

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'keyhold-machine-'));
  // The CLI needs the database the host creates: start once, provision, stop.
  const first = await startHost({}, dataDir);
  await first.stop();
  const added = await keyhold(
    [
      'clients',
      'add',
      '--grant',
      'client_credentials',
      '--scope',
      'mcp:tools',
      '--name',
      'nightly',
      '--json',
    ],
    { KEYHOLD_DATA_DIR: dataDir },
  );
  expect(added.code, added.stderr).toBe(0);
  const client = JSON.parse(added.stdout) as { clientId: string; clientSecret: string };
  credentials = { clientId: client.clientId, clientSecret: client.clientSecret, scope: 'mcp:tools' };

  const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwks = join(dataDir, 'machine-jwks.json');
  const publicJwk = { ...pair.publicKey.export({ format: 'jwk' }), kid: 'm1', alg: 'ES256', use: 'sig' };
  writeFileSync(jwks, JSON.stringify({ keys: [publicJwk] }));
  const keyed = await keyhold(
    [
      ...['clients', 'add', '--grant', 'client_credentials', '--scope', 'mcp:tools', '--name', 'signed'],
      ...['--auth-method', 'private_key_jwt', '--jwks', jwks, '--json'],
    ],
    { KEYHOLD_DATA_DIR: dataDir },
  );
  expect(keyed.code, keyed.stderr).toBe(0);
  signer = {
    clientId: (JSON.parse(keyed.stdout) as { clientId: string }).clientId,
    privateKey: { ...pair.privateKey.export({ format: 'jwk' }), kid: 'm1', alg: 'ES256' },
    algorithm: 'ES256',
    scope: 'mcp:tools',
  };
});
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

interface Seen {
  tokenRequests: number;
  mcpStatuses: number[];
}

function countingFetch(host: HostProcess, seen: Seen): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const response = await fetch(input, init);
    if (url.pathname === '/tenant/demo/token') seen.tokenRequests += 1;
    if (url.pathname === '/tenant/demo/mcp') seen.mcpStatuses.push(response.status);
    expect(url.origin).toBe(new URL(host.url).origin);
    return response;
  };
}

type Provider = 'secret' | 'private_key_jwt';

const sdks = {
  'SDK v1 (@modelcontextprotocol/sdk)': async (host: HostProcess, seen: Seen, provider: Provider) => {
    const expectedIssuer = `${host.url}/tenant/demo`;
    const client = new ClientV1({ name: 'machine', version: '1.0.0' });
    await client.connect(
      new TransportV1(new URL(`${host.url}/tenant/demo/mcp`), {
        authProvider:
          provider === 'secret'
            ? new CredentialsV1({ ...credentials, expectedIssuer })
            : new PrivateKeyJwtV1({ ...signer, expectedIssuer }),
        fetch: countingFetch(host, seen),
      }),
    );
    try {
      return (await client.listTools()).tools.map((tool) => tool.name);
    } finally {
      await client.close();
    }
  },
  'SDK v2 (@modelcontextprotocol/client)': async (host: HostProcess, seen: Seen, provider: Provider) => {
    const expectedIssuer = `${host.url}/tenant/demo`;
    const client = new ClientV2({ name: 'machine', version: '1.0.0' });
    await client.connect(
      new TransportV2(new URL(`${host.url}/tenant/demo/mcp`), {
        authProvider:
          provider === 'secret'
            ? new CredentialsV2({ ...credentials, expectedIssuer })
            : new PrivateKeyJwtV2({ ...signer, expectedIssuer }),
        fetch: countingFetch(host, seen),
      }),
    );
    try {
      return (await client.listTools()).tools.map((tool) => tool.name);
    } finally {
      await client.close();
    }
  },
};

const cases = Object.entries(sdks).flatMap(([sdk, listTools]) =>
  (['secret', 'private_key_jwt'] as const).map((provider) => [sdk, provider, listTools] as const),
);

describe('without KEYHOLD_MACHINE_CLIENTS the example host refuses machine clients once, clearly', () => {
  let host: HostProcess;
  beforeAll(async () => {
    host = await startHost({ KEYHOLD_CLIENT_CACHE_TTL_SECONDS: '0' }, dataDir);
  });
  afterAll(async () => {
    await host?.stop();
  });

  it.each(cases)(
    'the %s client-credentials provider (%s) stops after one token and one 403 saying why',
    async (_, provider, listTools) => {
      const seen: Seen = { tokenRequests: 0, mcpStatuses: [] };
      await expect(listTools(host, seen, provider)).rejects.toThrow(/403|machine clients are not accepted/);
      expect(seen.tokenRequests).toBe(1);
      expect(seen.mcpStatuses.filter((status) => status === 403)).toHaveLength(1);
    },
  );

  it('answers a machine token with 403 invalid_token naming no scope to step up to', async () => {
    const basic = Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64');
    const token = await fetch(`${host.url}/tenant/demo/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
      body: 'grant_type=client_credentials&scope=mcp%3Atools',
    });
    expect(token.status).toBe(200);
    const { access_token: accessToken } = (await token.json()) as { access_token: string };
    const refused = await listToolsWithBearer(`${host.url}/tenant/demo/mcp`, accessToken);
    expect(refused.status).toBe(403);
    const challenge = refused.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain('machine clients are not accepted');
    expect(challenge).not.toContain('scope=');
  });
});

describe('with KEYHOLD_MACHINE_CLIENTS=1 the example host serves provisioned machine clients', () => {
  let host: HostProcess;
  beforeAll(async () => {
    host = await startHost({ KEYHOLD_CLIENT_CACHE_TTL_SECONDS: '0', KEYHOLD_MACHINE_CLIENTS: '1' }, dataDir);
  });
  afterAll(async () => {
    await host?.stop();
  });

  it.each(cases)(
    'the %s client-credentials provider (%s) lists the tools with one token',
    async (_, provider, listTools) => {
      const seen: Seen = { tokenRequests: 0, mcpStatuses: [] };
      expect((await listTools(host, seen, provider)).length).toBeGreaterThan(0);
      expect(seen.tokenRequests).toBe(1);
      expect(seen.mcpStatuses).not.toContain(403);
    },
  );

  it('refuses a value other than 0 or 1 at start', async () => {
    await expect(startHost({ KEYHOLD_MACHINE_CLIENTS: 'yes' })).rejects.toThrow(/KEYHOLD_MACHINE_CLIENTS/);
  });
});
