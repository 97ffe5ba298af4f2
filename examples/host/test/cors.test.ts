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
