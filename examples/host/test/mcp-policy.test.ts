import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyhold } from './cli.js';
import { type HostProcess, startHost } from './host-process.js';
import { postInitialize } from './mcp-initialize.js';
import { loadConsentForm, postConsent, redeemCode } from './oauth-client.js';

let host: HostProcess;
beforeAll(async () => {
  host = await startHost();
});
afterAll(async () => {
  await host?.stop({ removeData: true });
});

const REDIRECT = 'http://127.0.0.1:9/cb';

/** The browser flow of a public client asking for exactly `scope`, ending in an access token. */
async function userToken(scope: string): Promise<{ access_token: string; scope?: string }> {
  const registered = (await (
    await fetch(`${host.url}/tenant/demo/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
    })
  ).json()) as { client_id: string };
  const verifier = randomBytes(32).toString('base64url');
  const authorize = await fetch(
    `${host.url}/tenant/demo/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: registered.client_id,
      redirect_uri: REDIRECT,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      scope,
    })}`,
    { redirect: 'manual' },
  );
  const consent = new URL(authorize.headers.get('location')!);
  const approved = await postConsent(consent, await loadConsentForm(consent));
  const code = new URL(approved.headers.get('location')!).searchParams.get('code')!;
  const response = await redeemCode(host.url, {
    code,
    verifier,
    redirectUri: REDIRECT,
    clientId: registered.client_id,
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { access_token: string; scope?: string };
}

function initialize(token: string, headers: Record<string, string> = {}): Promise<Response> {
  return postInitialize(`${host.url}/tenant/demo/mcp`, token, {
    protocolVersion: '2025-11-25',
    clientInfo: { name: 'policy', version: '1' },
    headers,
  });
}

describe('the MCP endpoint requires the tool scope and a user', () => {
  it('accepts a user token with mcp:tools', async () => {
    const response = await initialize((await userToken('mcp:tools')).access_token);
    expect(response.status).toBe(200);
    await response.body?.cancel();
  });

  it('refuses a foreign Origin with 403 even with a good token; its own origin is served', async () => {
    const { access_token: token } = await userToken('mcp:tools');
    for (const origin of ['https://evil.example', 'null']) {
      const refused = await initialize(token, { origin });
      expect(refused.status, origin).toBe(403);
      await refused.body?.cancel();
    }
    const own = await initialize(token, { origin: new URL(host.url).origin });
    expect(own.status).toBe(200);
    await own.body?.cancel();
  });

  it.each([
    ['only profile', 'profile'],
    ['an empty scope', ' '],
  ])('refuses a token with %s: 403 insufficient_scope naming mcp:tools', async (_, scope) => {
    const token = await userToken(scope);
    expect(token.scope ?? '').not.toContain('mcp:tools');
    const response = await initialize(token.access_token);
    expect(response.status).toBe(403);
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="mcp:tools"');
    expect(challenge).not.toContain('offline_access');
  });

  it('refuses a client_credentials token (sub client:<id>) even with mcp:tools', async () => {
    // Machine clients are provisioned by the host (anonymous registration gets no client_credentials).
    const provisioned = await keyhold(
      ['clients', 'add', '--grant', 'client_credentials', '--scope', 'mcp:tools', '--json'],
      { KEYHOLD_DATA_DIR: host.dataDir },
    );
    expect(provisioned.code, provisioned.stderr).toBe(0);
    const added = JSON.parse(provisioned.stdout) as { clientId: string; clientSecret: string };
    const client = { client_id: added.clientId, client_secret: added.clientSecret };
    const issued = await fetch(`${host.url}/tenant/demo/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials',
    });
    const token = (await issued.json()) as { access_token: string; scope: string };
    expect(token.scope).toBe('mcp:tools');
    const response = await initialize(token.access_token);
    expect(response.status).toBe(403);
    // Not insufficient_scope naming a scope it holds (MCP clients would step up in a loop): a final refusal.
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain('machine clients are not accepted');
    expect(challenge).not.toContain('scope=');
  });

  it('advertises the tool scope (and not offline_access) in the protected resource metadata', async () => {
    const metadata = (await (
      await fetch(`${host.url}/.well-known/oauth-protected-resource/tenant/demo/mcp`)
    ).json()) as { scopes_supported: string[] };
    expect(metadata.scopes_supported).toContain('mcp:tools');
    expect(metadata.scopes_supported).not.toContain('offline_access');
  });
});
