import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from './balancer.js';
import { keyhold } from './cli.js';
import { type HostProcess, hostDir, startHost } from './host-process.js';
import { authorizeMcpClient, TestOAuthProvider } from './oauth-client.js';

const text = (result: Awaited<ReturnType<Client['callTool']>>): string =>
  (result.content as { text: string }[])[0]!.text;

let host: HostProcess | undefined;
afterAll(async () => {
  await host?.stop({ removeData: true });
});

describe('a restart of the host keeps clients, refresh tokens, consents, grants, claims and tool records', () => {
  it('serves everything made before the restart from its data directory', async () => {
    const port = String(await freePort());
    host = await startHost({ PORT: port });
    const mcpUrl = new URL(`${host.url}/tenant/demo/mcp`);
    const provider = new TestOAuthProvider('http://127.0.0.1:1/callback');

    // Before: register (DCR), consent, tokens; connect the third-party provider (a grant); make a claim.
    expect((await authorizeMcpClient(mcpUrl, provider)).sawConsent).toBe(true);
    const client = new Client(
      { name: 'before', version: '1' },
      { capabilities: { elicitation: { url: {} } } },
    );
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    const elicitation = await client
      .callTool({ name: 'who_am_i', arguments: {} })
      .catch((e: { data: { elicitations: { url: string }[] } }) => e);
    const connect = await fetch(
      (elicitation as { data: { elicitations: { url: string }[] } }).data.elicitations[0]!.url,
      { redirect: 'manual' },
    );
    const toCallback = await fetch(connect.headers.get('location')!, { redirect: 'manual' });
    expect((await fetch(toCallback.headers.get('location')!)).status).toBe(200);
    // The tool modules' records: a note through MCP, a push event through the webhook.
    expect(text(await client.callTool({ name: 'add_note', arguments: { text: 'kept' } }))).toMatch(
      /^Saved\./,
    );
    const pushed = await fetch(`${host.url}/webhook/activity/github/push`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ref: 'refs/heads/main', repository: { full_name: 'kept/repo' } }),
    });
    expect(pushed.status).toBe(200);
    await client.close();
    const claim = await keyhold(['claim', '--scope', join(hostDir, 'tools/workspace-b'), '--json'], {
      KEYHOLD_DATA_DIR: host.dataDir,
    });
    const { code } = JSON.parse(claim.stdout) as { code: string };
    const refreshToken = provider.savedTokens!.refresh_token!;

    // Killed, not stopped: nothing gets a chance to be saved on the way out.
    const exited = new Promise((resolve) => host!.child.once('exit', resolve));
    host.child.kill('SIGKILL');
    await exited;
    host = await startHost({ PORT: port }, host.dataDir);

    // The refresh token issued before the restart still refreshes (and rotates).
    const refreshed = await fetch(`${host.url}/tenant/demo/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: provider.information!.client_id,
      }).toString(),
    });
    expect(refreshed.status).toBe(200);
    const tokens = (await refreshed.json()) as { access_token: string; refresh_token: string };
    expect(tokens.refresh_token).not.toBe(refreshToken);
    provider.saveTokens({ ...provider.savedTokens!, ...tokens });

    // The registered client and its remembered consent: authorizing again skips the consent screen.
    // The SDK asks with prompt=consent whenever it wants offline_access; without it, the consent remembered
    // before the restart answers at once.
    const again = new URL(provider.authorizationUrl!);
    again.searchParams.delete('prompt');
    const redirect = await fetch(again, { redirect: 'manual' });
    expect(redirect.headers.get('location')).toContain('code=');

    // The third-party grant: the ask is answered at once. The claim: the session sees one directory.
    const scoped = new Client({ name: 'after', version: '1' });
    await scoped.connect(
      new StreamableHTTPClientTransport(mcpUrl, {
        authProvider: provider,
        requestInit: { headers: { 'Mcp-Claim-Code': code } },
      }),
    );
    expect((await scoped.listTools()).tools.map((t) => t.name).sort()).toEqual(['recent_pushes', 'who_am_i']);
    expect(text(await scoped.callTool({ name: 'who_am_i', arguments: {} }))).toContain('as owner');
    expect(JSON.parse(text(await scoped.callTool({ name: 'recent_pushes', arguments: {} })))).toEqual([
      { repository: 'kept/repo', ref: 'refs/heads/main' },
    ]);
    await scoped.close();
    const unscoped = new Client({ name: 'after', version: '1' });
    await unscoped.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    const notes = JSON.parse(text(await unscoped.callTool({ name: 'list_notes', arguments: {} })));
    expect(notes.map((note: { text: string }) => note.text)).toEqual(['kept']);
    await unscoped.close();
  });
});
