import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostProcess, startHost } from './host-process.js';

let host: HostProcess;
beforeAll(async () => {
  host = await startHost();
});
afterAll(async () => {
  await host?.stop({ removeData: true });
});

const preflight = (origin: string): RequestInit => ({
  method: 'OPTIONS',
  headers: {
    origin,
    'access-control-request-method': 'POST',
    'access-control-request-headers': 'content-type',
  },
});

describe('the host answers CORS preflights on the JSON endpoints of the authorization server', () => {
  it('answers 204 on token, revocation, introspection and metadata for a browser-based client', async () => {
    for (const path of ['token', 'revoke', 'introspect', '.well-known/openid-configuration']) {
      const response = await fetch(`${host.url}/tenant/demo/${path}`, preflight('https://client.example'));
      expect(response.status, path).toBe(204);
      expect(response.headers.get('access-control-allow-origin'), path).toBe('*');
      expect(response.headers.get('access-control-allow-methods'), path).toContain('OPTIONS');
    }
  });

  it('refuses the registration preflight of an origin that may not register (KEYHOLD_ALLOWED_ORIGINS)', async () => {
    const response = await fetch(`${host.url}/tenant/demo/register`, preflight('https://client.example'));
    expect(response.status).toBe(403);
  });
});

describe('a browser page on a listed origin can call the MCP endpoint (KEYHOLD_ALLOWED_ORIGINS)', () => {
  const origin = 'http://localhost:6274';
  let listed: HostProcess;
  beforeAll(async () => {
    listed = await startHost({ KEYHOLD_ALLOWED_ORIGINS: origin });
  });
  afterAll(async () => {
    await listed?.stop({ removeData: true });
  });

  it('answers the preflight 204 before authentication, with the MCP request headers allowed', async () => {
    const response = await fetch(`${listed.url}/tenant/demo/mcp`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(origin);
    const allowed = (response.headers.get('access-control-allow-headers') ?? '').toLowerCase();
    for (const header of ['authorization', 'content-type', 'mcp-protocol-version']) {
      expect(allowed).toContain(header);
    }
  });

  it('lets the page read the 401 challenge: the origin allowed and WWW-Authenticate exposed', async () => {
    const response = await fetch(`${listed.url}/tenant/demo/mcp`, {
      method: 'POST',
      headers: {
        origin,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('access-control-allow-origin')).toBe(origin);
    const exposed = (response.headers.get('access-control-expose-headers') ?? '').toLowerCase();
    expect(exposed).toContain('www-authenticate');
    expect(exposed).toContain('mcp-session-id');
  });

  it('still refuses an origin that is not listed', async () => {
    const response = await fetch(`${listed.url}/tenant/demo/mcp`, {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(403);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});
