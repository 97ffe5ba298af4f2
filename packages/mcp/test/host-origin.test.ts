import { describe, expect, it } from 'vitest';
import { inProcessEndpoint, listToolsRequest } from './helpers.js';

describe('DNS rebinding: Host and Origin are checked before anything else', () => {
  it('refuses a foreign Host with 403, before authentication (no challenge is sent)', async () => {
    const { endpoint } = inProcessEndpoint();
    const response = await endpoint.fetch(listToolsRequest({ host: 'evil.example', authorization: '' }));
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toBeNull();
    expect(await response.json()).toMatchObject({
      error: { code: -32000, message: 'Forbidden: Invalid Host header' },
    });
  });

  it('accepts the loopback names on the public port when the public URL is loopback', async () => {
    const { endpoint } = inProcessEndpoint();
    for (const host of ['127.0.0.1:8787', 'localhost:8787', '[::1]:8787']) {
      expect((await endpoint.fetch(listToolsRequest({ host }))).status).toBe(200);
    }
    expect((await endpoint.fetch(listToolsRequest({ host: 'localhost:9999' }))).status).toBe(403);
  });

  it('refuses a foreign Origin and the null Origin with 403; a missing Origin passes', async () => {
    const { endpoint } = inProcessEndpoint();
    expect((await endpoint.fetch(listToolsRequest({ origin: 'https://evil.example' }))).status).toBe(403);
    expect((await endpoint.fetch(listToolsRequest({ origin: 'null' }))).status).toBe(403);
    expect((await endpoint.fetch(listToolsRequest({ origin: 'http://localhost:8787' }))).status).toBe(200);
    expect((await endpoint.fetch(listToolsRequest())).status).toBe(200);
  });

  it('takes the allowlists from options when given', async () => {
    const { endpoint } = inProcessEndpoint({
      allowedHosts: ['mcp.example.com'],
      allowedOrigins: ['https://app.example.com'],
    });
    expect((await endpoint.fetch(listToolsRequest({ host: '127.0.0.1:8787' }))).status).toBe(403);
    expect((await endpoint.fetch(listToolsRequest({ host: 'mcp.example.com' }))).status).toBe(200);
    expect(
      (await endpoint.fetch(listToolsRequest({ host: 'mcp.example.com', origin: 'https://app.example.com' })))
        .status,
    ).toBe(200);
  });

  it('answers 404 off its path, so hosts can chain it', async () => {
    const { endpoint } = inProcessEndpoint();
    const response = await endpoint.fetch(listToolsRequest({}, 'http://127.0.0.1:8787/other'));
    expect(response.status).toBe(404);
  });
});
