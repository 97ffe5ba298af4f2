import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyhold } from './cli.js';
import { type HostProcess, hostDir, startHost } from './host-process.js';
import { approveInBrowser, TestOAuthProvider } from './oauth-client.js';

/**
 * Every secret value the flows below see, by name. Logs may carry ids and short prefixes (a code's first six
 * characters, say), never a value: the assertion looks for the whole value and for its first half.
 */
const seen = new Map<string, string>();
function saw(name: string, value: string | null | undefined): void {
  if (value !== null && value !== undefined && value.length >= 8) seen.set(`${name}#${seen.size}`, value);
}

const WEBHOOK_SECRET = 'wh-secret-for-the-log-audit-0123456789';
let host: HostProcess;
let mcpUrl: URL;
const oauth = new TestOAuthProvider('http://127.0.0.1:1/callback');

beforeAll(async () => {
  host = await startHost({ LOG_LEVEL: 'debug', SVC_WEBHOOK_SECRET: WEBHOOK_SECRET });
  mcpUrl = new URL(`${host.url}/tenant/demo/mcp`);
  saw('webhook secret', WEBHOOK_SECRET);
  const secrets = JSON.parse(readFileSync(join(host.dataDir, 'secrets.json'), 'utf8')) as Record<
    string,
    string
  >;
  for (const [name, value] of Object.entries(secrets)) saw(`host secret ${name}`, value);
}, 60_000);
afterAll(async () => {
  await host?.stop({ removeData: true });
});

async function connect(headers: Record<string, string> = {}, capabilities: Record<string, unknown> = {}) {
  const client = new Client({ name: 'log-audit', version: '1.0.0' }, { capabilities });
  await client.connect(
    new StreamableHTTPClientTransport(mcpUrl, { authProvider: oauth, requestInit: { headers } }),
  );
  return client;
}

const form = (url: string, params: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(params).toString(),
  });

describe('secrets never reach the logs: every flow of the host at LOG_LEVEL=debug', () => {
  it('runs the OAuth flow (DCR, PKCE, consent, code, tokens, refresh, introspect, revoke)', async () => {
    await new Client({ name: 'authorize', version: '1.0.0' })
      .connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: oauth }))
      .catch(() => {});
    const authorizationUrl = oauth.authorizationUrl!;
    saw('state', authorizationUrl.searchParams.get('state'));
    saw('pkce verifier', oauth.codeVerifier());
    const { code, state } = await approveInBrowser(authorizationUrl);
    saw('authorization code', code);
    saw('state (returned)', state);
    await new StreamableHTTPClientTransport(mcpUrl, { authProvider: oauth }).finishAuth(code);
    const tokens = oauth.savedTokens!;
    saw('access token', tokens.access_token);
    saw('refresh token', tokens.refresh_token);
    const clientId = String((oauth.information as { client_id: string }).client_id);

    // A refresh rotation, then the code replayed (OAuth 2.1 §4.1.3: that revokes every token issued from it)
    // and the rotated-out token replayed (family revocation logs).
    const rotated = (await (
      await form(`${host.url}/tenant/demo/token`, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token!,
        client_id: clientId,
      })
    ).json()) as { access_token: string; refresh_token: string };
    saw('rotated access token', rotated.access_token);
    saw('rotated refresh token', rotated.refresh_token);
    oauth.saveTokens({ ...tokens, access_token: rotated.access_token, refresh_token: rotated.refresh_token });
    const replay = await form(`${host.url}/tenant/demo/token`, {
      grant_type: 'authorization_code',
      code,
      code_verifier: oauth.codeVerifier(),
      redirect_uri: oauth.redirectUrl,
      client_id: clientId,
    });
    expect(replay.status).toBe(400);

    // A confidential client (provisioned: anonymous registration gets no machine grants): its secret,
    // client_credentials, introspection and revocation.
    const provisioned = await keyhold(
      ['clients', 'add', '--grant', 'client_credentials', '--name', 'log audit service', '--json'],
      { KEYHOLD_DATA_DIR: host.dataDir },
    );
    expect(provisioned.code, provisioned.stderr).toBe(0);
    const added = JSON.parse(provisioned.stdout) as { clientId: string; clientSecret: string };
    const registered = { client_id: added.clientId, client_secret: added.clientSecret };
    saw('client secret', registered.client_secret);
    const basic = {
      authorization: `Basic ${Buffer.from(`${registered.client_id}:${registered.client_secret}`).toString('base64')}`,
    };
    const machine = await form(`${host.url}/tenant/demo/token`, { grant_type: 'client_credentials' }, basic);
    expect(machine.status).toBe(200);
    saw('client_credentials token', ((await machine.json()) as { access_token: string }).access_token);
    await form(`${host.url}/tenant/demo/introspect`, { token: rotated.access_token }, basic);
    await form(
      `${host.url}/tenant/demo/token`,
      { grant_type: 'client_credentials' },
      {
        authorization: `Basic ${Buffer.from(`${registered.client_id}:wrong-secret-guess-123456`).toString('base64')}`,
      },
    );
    saw('guessed secret', 'wrong-secret-guess-123456');
    const spare = (await (
      await form(`${host.url}/tenant/demo/token`, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token!,
        client_id: clientId,
      })
    ).json()) as { error?: string };
    expect(spare.error).toBe('invalid_grant');
  });

  it('re-authorizes after the replay revoked the family, then makes MCP calls with the token', async () => {
    oauth.savedTokens = undefined;
    await new Client({ name: 'authorize', version: '1.0.0' })
      .connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: oauth }))
      .catch(() => {});
    const { code } = await approveInBrowser(oauth.authorizationUrl!);
    saw('authorization code 2', code);
    await new StreamableHTTPClientTransport(mcpUrl, { authProvider: oauth }).finishAuth(code);
    saw('access token 2', oauth.tokens()?.access_token);
    saw('refresh token 2', oauth.tokens()?.refresh_token);
    const client = await connect();
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.callTool({ name: 'add_note', arguments: { text: 'a note for the log audit' } });
    await client.callTool({ name: 'list_notes', arguments: {} });
    await client.close();
  });

  it('uses a claim code (header and ?claim=) and a wrong one', async () => {
    const created = await keyhold(['claim', '--scope', join(hostDir, 'tools/workspace-a'), '--json'], {
      KEYHOLD_DATA_DIR: host.dataDir,
    });
    expect(created.code).toBe(0);
    const { code } = JSON.parse(created.stdout) as { code: string };
    saw('claim code', code);
    saw('claim code (display form)', `${code.slice(0, 3)}-${code.slice(3)}`);
    const scoped = await connect({ 'Mcp-Claim-Code': code });
    await scoped.listTools();
    await scoped.close();
    const viaQuery = new Client({ name: 'log-audit-query', version: '1.0.0' });
    await viaQuery.connect(
      new StreamableHTTPClientTransport(new URL(`${mcpUrl.href}?claim=${code}`), { authProvider: oauth }),
    );
    await viaQuery.listTools();
    await viaQuery.close();
    // A code that is not valid is served unscoped (the specification's default) and logged as invalid,
    // without the code itself (checked with every other secret below).
    const wrong = await connect({ 'Mcp-Claim-Code': 'ZZZ-ZZZ' });
    await wrong.listTools();
    await wrong.close();
    expect(host.output()).toMatch(/"event":"claim_code_invalid"[^\n]*"action":"unscoped"/);
  });

  it('delivers webhooks with the secret, and refuses a wrong one', async () => {
    const post = (secret: string) =>
      fetch(`${host.url}/webhook/notes/handleIncoming`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-Webhook-Secret': secret },
        body: JSON.stringify({ text: 'from the log audit' }),
      });
    expect((await post(WEBHOOK_SECRET)).status).toBe(200);
    saw('wrong webhook secret', 'not-the-webhook-secret-987654');
    expect((await post('not-the-webhook-secret-987654')).status).toBe(401);
  });

  it('brokers a provider token (ask → connect → provider authorize → callback → retry)', async () => {
    const client = await connect({}, { elicitation: { url: {} } });
    const error = await client.callTool({ name: 'who_am_i', arguments: {} }).catch((e: unknown) => e);
    expect((error as McpError).code).toBe(-32042);
    const [elicitation] = (error as McpError & { data: { elicitations: { url: string }[] } }).data
      .elicitations;
    const toProvider = await fetch(elicitation!.url, { redirect: 'manual' });
    const authorize = new URL(toProvider.headers.get('location')!);
    saw('provider state', authorize.searchParams.get('state'));
    const toCallback = await fetch(authorize, { redirect: 'manual' });
    const callback = new URL(toCallback.headers.get('location')!);
    saw('provider code', callback.searchParams.get('code'));
    expect((await fetch(callback)).status).toBe(200);
    // A replayed callback is refused and logged: with nothing secret.
    expect((await fetch(callback)).status).toBeGreaterThanOrEqual(400);
    const result = await client.callTool({ name: 'who_am_i', arguments: {} });
    expect((result.content as { text: string }[])[0]!.text).toContain('as owner');
    await client.close();
  });

  it('logged at debug level throughout, and no value seen above appears in the logs', async () => {
    await host.stop();
    const logs = host.output();
    expect(logs).toMatch(/"level":20/);
    expect(logs).toMatch(/authorization code issued/);
    expect(seen.size).toBeGreaterThanOrEqual(20);
    const leaked: string[] = [];
    for (const [name, value] of seen) {
      const half = value.slice(0, Math.max(8, Math.ceil(value.length / 2)));
      if (logs.includes(value) || logs.includes(half)) leaked.push(name);
    }
    expect(leaked).toEqual([]);
  });
});
