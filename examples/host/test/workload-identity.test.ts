import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostProcess, startHost } from './host-process.js';
import { postInitialize } from './mcp-initialize.js';
import { type TestIssuer, testIssuer, textOf } from './test-issuer.js';

// A test CI issuer (a node:crypto key pair) trusted for subjects `repo:acme/*` by a KEYHOLD_TRUST_POLICIES
// file, and the built host started twice with it: once accepting machine subjects (KEYHOLD_MACHINE_CLIENTS=1),
// once not. No client is provisioned: a workload needs no registration (RFC 7523 §2.1).
// The MCP SDK v2 client (2.4) has no workload-identity provider yet: the token is redeemed with a plain
// token request, as a workload would, and handed to the SDK client as its bearer token.
const CI = 'https://ci.example';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
let dir: string;
let machines: HostProcess;
let usersOnly: HostProcess;
let ci: TestIssuer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'keyhold-wif-'));
  ci = testIssuer('ci-1');
  const policies = join(dir, 'trust-policies.json');
  writeFileSync(
    policies,
    JSON.stringify({
      demo: {
        workloads: [
          {
            issuer: CI,
            jwks: { keys: [ci.publicJwk] },
            subject: 'repo:acme/*',
            scopes: ['mcp:tools'],
            max_lifetime_seconds: 900,
          },
        ],
      },
    }),
  );
  [machines, usersOnly] = await Promise.all([
    startHost({ KEYHOLD_TRUST_POLICIES: policies, KEYHOLD_MACHINE_CLIENTS: '1' }, join(dir, 'machines')),
    startHost({ KEYHOLD_TRUST_POLICIES: policies }, join(dir, 'users-only')),
  ]);
});

afterAll(async () => {
  await Promise.all([machines?.stop(), usersOnly?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

/** An ES256 workload JWT from the test CI issuer, addressed to the host's tenant issuer. */
function mintWorkload(host: HostProcess, sub = 'repo:acme/app:ref:refs/heads/main'): string {
  return ci.mint('JWT', { iss: CI, sub, aud: `${host.url}/tenant/demo` });
}

async function redeem(host: HostProcess, assertion: string): Promise<Response> {
  return fetch(`${host.url}/tenant/demo/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: JWT_BEARER, assertion }),
  });
}

async function workloadToken(host: HostProcess): Promise<string> {
  const response = await redeem(host, mintWorkload(host));
  const body = (await response.json()) as { access_token?: string; refresh_token?: string };
  expect(response.status, JSON.stringify(body)).toBe(200);
  expect(body.refresh_token).toBeUndefined();
  return String(body.access_token);
}

describe('the example host redeems a workload JWT under a trust policy of KEYHOLD_TRUST_POLICIES', () => {
  it('advertises jwt-bearer for the tenant, without the id-jag profile', async () => {
    const metadata = (await (
      await fetch(`${machines.url}/.well-known/oauth-authorization-server/tenant/demo`)
    ).json()) as Record<string, unknown>;
    expect(metadata.grant_types_supported).toContain(JWT_BEARER);
    expect(metadata.authorization_grant_profiles_supported).toBeUndefined();
  });

  it('issues a token naming the workload (workload:<sub>), with no client registered', async () => {
    const token = await workloadToken(machines);
    const claims = JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString());
    expect(claims).toMatchObject({
      sub: 'workload:repo:acme/app:ref:refs/heads/main',
      client_id: `workload:${CI}`,
      scope: 'mcp:tools',
    });
  });

  it('refuses a subject outside the policy, and a replayed JWT, with invalid_grant', async () => {
    const stranger = await redeem(machines, mintWorkload(machines, 'repo:evil/app'));
    expect(stranger.status).toBe(400);
    expect(((await stranger.json()) as { error: string }).error).toBe('invalid_grant');
    const assertion = mintWorkload(machines);
    expect((await redeem(machines, assertion)).status).toBe(200);
    const replay = await redeem(machines, assertion);
    expect(((await replay.json()) as { error: string }).error).toBe('invalid_grant');
  });
});

describe('a workload token is accepted only by an MCP endpoint that allows machine subjects', () => {
  it('with KEYHOLD_MACHINE_CLIENTS=1 the MCP SDK v2 client calls tools with it', async () => {
    const token = await workloadToken(machines);
    const mcp = new ClientV2({ name: 'ci-job', version: '1.0.0' });
    await mcp.connect(
      new TransportV2(new URL(`${machines.url}/tenant/demo/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const note = `from a workload ${randomUUID()}`;
      expect(textOf(await mcp.callTool({ name: 'add_note', arguments: { text: note } }))).toMatch(/^Saved\./);
      expect(textOf(await mcp.callTool({ name: 'list_notes', arguments: {} }))).toContain(note);
    } finally {
      await mcp.close();
    }
  });

  it('without it the same kind of token gets one 403 saying machine clients are not accepted', async () => {
    const token = await workloadToken(usersOnly);
    const response = await postInitialize(`${usersOnly.url}/tenant/demo/mcp`, token, {
      protocolVersion: '2025-06-18',
      clientInfo: { name: 'ci-job', version: '1.0.0' },
    });
    expect(response.status).toBe(403);
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain('machine clients are not accepted');
    expect(challenge).not.toContain('scope=');
  });
});
