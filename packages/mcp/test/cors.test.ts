import { describe, expect, it } from 'vitest';
import { inProcessEndpoint, listToolsRequest, PUBLIC_URL } from './helpers.js';

const PAGE = 'https://app.example';
const EXPOSED = 'WWW-Authenticate, DPoP-Nonce, Mcp-Session-Id, Mcp-Protocol-Version';

function preflight(origin: string): Request {
  return new Request(PUBLIC_URL, {
    method: 'OPTIONS',
    headers: {
      host: '127.0.0.1:8787',
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    },
  });
}

describe('CORS: a preflight from a listed origin is answered 204 before authentication', () => {
  it('allows the methods and MCP headers a browser client sends, for the origin only', async () => {
    const { endpoint } = inProcessEndpoint({ allowedOrigins: [PAGE] });
    const response = await endpoint.fetch(preflight(PAGE));
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(response.headers.get('vary')).toContain('Origin');
    expect(response.headers.get('access-control-allow-methods')).toBe('GET, POST, DELETE');
    expect(response.headers.get('access-control-allow-headers')).toBe(
      'authorization, content-type, dpop, mcp-protocol-version, mcp-session-id, last-event-id, mcp-claim-code',
    );
    expect(Number(response.headers.get('access-control-max-age'))).toBeGreaterThan(0);
  });

  it('allows the resource origin by default', async () => {
    const { endpoint } = inProcessEndpoint();
    const response = await endpoint.fetch(preflight('http://127.0.0.1:8787'));
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:8787');
  });

  it('refuses an unlisted origin with 403 and no CORS headers', async () => {
    const { endpoint } = inProcessEndpoint({ allowedOrigins: [PAGE] });
    const response = await endpoint.fetch(preflight('https://evil.example'));
    expect(response.status).toBe(403);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const post = await endpoint.fetch(listToolsRequest({ origin: 'https://evil.example' }));
    expect(post.status).toBe(403);
    expect(post.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('CORS: every answer to a listed origin can be read, its challenge and session headers included', () => {
  it.each([
    ['a 200', 'Bearer alice-token', 200],
    ['a 401 challenge', '', 401],
    ['a 403 refusal', 'Bearer no-scope-token', 403],
    ['a 503 outage', 'Bearer outage-token', 503],
  ])('%s', async (_, authorization, status) => {
    const { endpoint } = inProcessEndpoint({ allowedOrigins: [PAGE] });
    const response = await endpoint.fetch(listToolsRequest({ origin: PAGE, authorization }));
    expect(response.status).toBe(status);
    expect(response.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(response.headers.get('access-control-expose-headers')).toBe(EXPOSED);
    expect(response.headers.get('vary')).toContain('Origin');
  });

  it('a 404 for a path it does not own', async () => {
    const { endpoint } = inProcessEndpoint({ allowedOrigins: [PAGE] });
    const response = await endpoint.fetch(
      listToolsRequest({ origin: PAGE }, 'http://127.0.0.1:8787/elsewhere'),
    );
    expect(response.status).toBe(404);
    expect(response.headers.get('access-control-allow-origin')).toBe(PAGE);
  });
});
