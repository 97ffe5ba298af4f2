import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostProcess, startHost } from './host-process.js';

let host: HostProcess;
beforeAll(async () => {
  host = await startHost({ SVC_WEBHOOK_SECRET: 'secret-for-bad-input' });
});
afterAll(async () => {
  await host?.stop({ removeData: true });
});

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';
const bodies: [string, string][] = [
  [FORM, 'grant_type=authorization_code&grant_type=refresh_token'],
  [FORM, 'a=%zz&b=%'],
  [FORM, `code=${'x'.repeat(100_000)}`],
  [FORM, Array.from({ length: 500 }, (_, i) => `p${i}=v`).join('&')],
  [FORM, '\u0000\u0001\u0002'],
  [JSON_TYPE, '{"redirect_uris":'],
  [JSON_TYPE, '[1,2,3]'],
  [JSON_TYPE, '{"redirect_uris":"not-an-array","client_name":{"x":1}}'],
  [JSON_TYPE, '{"__proto__":{"polluted":true},"redirect_uris":["javascript:alert(1)"]}'],
  ['text/plain', 'hello'],
  ['', ''],
];
const posts = [
  '/tenant/demo/token',
  '/tenant/demo/register',
  '/tenant/demo/revoke',
  '/tenant/demo/introspect',
  '/tenant/demo/consent',
  '/tenant/demo/login',
  '/tenant/nope/token',
  '/tenant/constructor/token',
  '/tenant/hasOwnProperty/register',
  '/webhook/notes/handleIncoming',
  '/tenant/demo/mcp',
];
const queries = [
  '/tenant/demo/authorize?client_id=a&client_id=b',
  '/tenant/demo/authorize?response_type=token&client_id=x',
  '/tenant/demo/authorize?%zz',
  `/tenant/demo/authorize?client_id=${'x'.repeat(8_000)}`,
  '/tenant/demo/authorize?client_id=https%3A%2F%2F127.0.0.1%2Fclient.json&response_type=code',
  '/tenant/demo/consent?req=unknown',
  '/tenant/demo/consent',
  '/auth/oauth/callback?state=garbage&code=x',
  '/auth/oauth/callback?error=access_denied',
  '/auth/oauth/connect?elicitation_id=nope',
  '/api/providers/..%2f..%2fetc%2fpasswd',
  '/api/providers/search?q=a&q=b',
  '/tenant/%E0%A4%A/authorize',
  '/.well-known/oauth-authorization-server/tenant/nope',
  // Object.prototype members are unknown tenants, not a 500.
  '/tenant/constructor/authorize?client_id=x',
  '/tenant/toString/.well-known/jwks.json',
  '/.well-known/oauth-authorization-server/tenant/hasOwnProperty',
  '/tenant/__proto__/.well-known/openid-configuration',
];

describe('malformed input to every host endpoint gets a clear 4xx, never a 500, and the host keeps serving', () => {
  it.each(posts)('POST %s with malformed bodies', async (path) => {
    for (const [type, body] of bodies) {
      const response = await fetch(`${host.url}${path}`, {
        method: 'POST',
        headers: type ? { 'content-type': type, accept: 'application/json, text/event-stream' } : {},
        body,
      });
      expect(response.status, `${path} ${type} ${body.slice(0, 40)}`).toBeGreaterThanOrEqual(400);
      expect(response.status, `${path} ${type} ${body.slice(0, 40)}`).toBeLessThan(500);
      await response.arrayBuffer();
    }
  });

  it.each(queries)('GET %s', async (path) => {
    const response = await fetch(`${host.url}${path}`, { redirect: 'manual' });
    expect(response.status).toBeLessThan(500);
    await response.arrayBuffer();
  });

  it('answers a body over the limit with 413', async () => {
    const response = await fetch(`${host.url}/tenant/demo/token`, {
      method: 'POST',
      headers: { 'content-type': FORM },
      body: 'x'.repeat(2 * 1024 * 1024),
    });
    expect(response.status).toBe(413);
  });

  it('is still healthy afterwards and never echoed a secret into its log', async () => {
    expect((await fetch(`${host.url}/health`)).status).toBe(200);
    expect(host.output()).not.toContain('secret-for-bad-input');
  });
});
