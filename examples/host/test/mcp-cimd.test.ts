import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeRequestUrl } from '../../../test-support/code-request-url.js';
import { type HostProcess, startHost } from './host-process.js';
import { approveInBrowser, TestOAuthProvider } from './oauth-client.js';

const CLIENT_ID = 'https://client.example/oauth/client-metadata.json';
const REDIRECT_URI = 'http://127.0.0.1:1/callback';

let documentServer: Server;
let documentRequests = 0;
let host: HostProcess;

beforeAll(async () => {
  // The client's metadata document, served by the test; the host reaches it through its development
  // rewrite of https://client.example, with the allowlist naming client.example.
  documentServer = createServer((req, res) => {
    documentRequests++;
    if (req.url !== '/oauth/client-metadata.json') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300', etag: '"v1"' });
    res.end(
      JSON.stringify({
        client_id: CLIENT_ID,
        client_name: 'CIMD e2e client',
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    );
  });
  await new Promise<void>((resolve) => documentServer.listen(0, '127.0.0.1', resolve));
  const port = (documentServer.address() as AddressInfo).port;
  host = await startHost({
    KEYHOLD_CIMD_DOMAINS: 'client.example',
    KEYHOLD_CIMD_DEV_REWRITE: `https://client.example=http://127.0.0.1:${port}`,
  });
});
afterAll(async () => {
  await host?.stop({ removeData: true });
  await new Promise((resolve) => documentServer?.close(resolve));
});

describe('a real MCP client arriving with a Client ID Metadata Document', () => {
  it('sees client_id_metadata_document_supported advertised', async () => {
    const metadata = (await (
      await fetch(`${host.url}/.well-known/oauth-authorization-server/tenant/demo`)
    ).json()) as Record<string, unknown>;
    expect(metadata['client_id_metadata_document_supported']).toBe(true);
  });

  it('uses its metadata URL as client_id (no registration), gets consent showing the document host, and calls tools', async () => {
    const provider = new TestOAuthProvider(REDIRECT_URI, CLIENT_ID);
    const mcpUrl = new URL(`${host.url}/tenant/demo/mcp`);
    await new Client({ name: 'cimd', version: '1.0.0' })
      .connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }))
      .catch(() => {});
    const authorizationUrl = provider.authorizationUrl!;
    expect(authorizationUrl.searchParams.get('client_id')).toBe(CLIENT_ID);

    const consent = await fetch(authorizationUrl, { redirect: 'manual' });
    const consentPage = await (await fetch(new URL(consent.headers.get('location')!, host.url))).text();
    expect(consentPage).toContain('client.example');
    expect(documentRequests).toBeGreaterThan(0);

    const { code } = await approveInBrowser(authorizationUrl);
    await new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }).finishAuth(code);
    const client = new Client({ name: 'cimd', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
  });

  it('refuses a metadata-document client whose host is not on the allowlist', async () => {
    const url = codeRequestUrl(
      `${host.url}/tenant/demo/authorize`,
      'https://elsewhere.example/client.json',
      REDIRECT_URI,
      { state: 's' },
    );
    const response = await fetch(url, { redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/not allowed|allowlist|invalid_client/i);
  });
});
