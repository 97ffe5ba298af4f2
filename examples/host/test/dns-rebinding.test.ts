import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './balancer.js';
import { type HostProcess, startHost } from './host-process.js';
import { loadConsentForm, postConsent, redeemCode } from './oauth-client.js';

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request to the host's socket with a Host header of our choosing, as a rebinding page's browser sends. */
function withHost(
  base: string,
  hostHeader: string,
  init: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<RawResponse> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        method: init.method ?? 'GET',
        path: init.path,
        headers: { ...init.headers, host: hostHeader },
      },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

const REDIRECT = 'http://127.0.0.1:9/cb';

/** Retries an assertion for up to two seconds (the banner's later lines follow the "listening" line). */
async function eventually(check: () => void): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      check();
      return;
    } catch (error) {
      if (i >= 40) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

describe("DNS rebinding: the issue's four steps with Host: rebind.attacker.example:<port>", () => {
  let host: HostProcess;
  beforeAll(async () => {
    host = await startHost(); // single-user mode on 127.0.0.1, as the README starts it
  });
  afterAll(async () => {
    await host?.stop({ removeData: true });
  });

  it('fails at its first step: registration is answered 421 before any handler runs', async () => {
    const port = new URL(host.url).port;
    const attacker = `rebind.attacker.example:${port}`;
    const register = await withHost(host.url, attacker, {
      method: 'POST',
      path: '/tenant/demo/register',
      headers: { 'content-type': 'application/json', origin: `http://${attacker}` },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9/cb'], token_endpoint_auth_method: 'none' }),
    });
    expect(register.status).toBe(421);
    expect(JSON.parse(register.body)).toMatchObject({ error: 'misdirected_request' });
  });

  it('refuses a foreign Host on every endpoint: 421 for OAuth, webhooks, registry API, health; 403 (JSON-RPC) at MCP', async () => {
    const port = new URL(host.url).port;
    const attacker = `rebind.attacker.example:${port}`;
    const { challenge } = pkcePair();
    const requests: { method?: string; path: string; headers?: Record<string, string>; body?: string }[] = [
      {
        path: `/tenant/demo/authorize?response_type=code&client_id=x&redirect_uri=${encodeURIComponent(REDIRECT)}&code_challenge=${challenge}&code_challenge_method=S256`,
      },
      { path: '/tenant/demo/consent?req=x' },
      {
        method: 'POST',
        path: '/tenant/demo/consent',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: `http://${attacker}` },
        body: 'req=x&decision=approve',
      },
      {
        method: 'POST',
        path: '/tenant/demo/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=authorization_code&code=x',
      },
      {
        method: 'POST',
        path: '/webhook/notes/handleIncoming',
        headers: { 'content-type': 'application/json' },
        body: '{"text":"x"}',
      },
      { path: '/api/providers/search?q=git' },
      { path: '/.well-known/oauth-authorization-server/tenant/demo' },
      { path: '/health' },
    ];
    for (const init of requests) {
      expect((await withHost(host.url, attacker, init)).status, init.path).toBe(421);
    }
    // @keyhold/mcp checks Host itself, before the bearer token, and answers as MCP clients expect.
    const mcp = await withHost(host.url, attacker, {
      method: 'POST',
      path: '/tenant/demo/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status).toBe(403);
    expect(JSON.parse(mcp.body)).toMatchObject({
      error: { code: -32000, message: 'Forbidden: Invalid Host header' },
    });
  });

  it('answers a malformed or repeated Host with 421 on the MCP path too, never a 500', async () => {
    const port = new URL(host.url).port;
    const mcpPost = {
      method: 'POST',
      path: '/tenant/demo/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    };
    for (const malformed of [`evil@127.0.0.1:${port}`, `127.0.0.1:${port}, evil.example`, 'a b', '[']) {
      expect((await withHost(host.url, malformed, mcpPost)).status, malformed).toBe(421);
    }
    const { connect } = await import('node:net');
    const statusLine = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.end(
          `POST /tenant/demo/mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nHost: 127.0.0.1:${port}\r\n` +
            `content-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}`,
        );
      });
      let data = '';
      socket.on('data', (chunk: Buffer) => {
        data += chunk.toString();
      });
      socket.on('close', () => resolve(data.split('\r\n', 1)[0] ?? ''));
      socket.on('error', reject);
    });
    expect(statusLine).toMatch(/^HTTP\/1\.1 421 /);
    expect((await fetch(`${host.url}/health`)).status).toBe(200);
  });

  it('answers an MCP POST without a token 401 before reading its body, and hangs up on the rest', async () => {
    const port = Number(new URL(host.url).port);
    const size = 4 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const { connect } = await import('node:net');
    const result = await new Promise<{ head: string; sent: number }>((resolve) => {
      let head = '';
      let sent = 0;
      let done = false;
      const finish = () => {
        if (!done) {
          done = true;
          resolve({ head, sent });
        }
      };
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          `POST /tenant/demo/mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\n` +
            `accept: application/json, text/event-stream\r\ncontent-length: ${size}\r\n\r\n`,
        );
        const pump = () => {
          if (done || socket.destroyed || sent >= size) return;
          sent += chunk.length;
          socket.write(chunk, () => setTimeout(pump, 5));
        };
        pump();
      });
      socket.setEncoding('latin1');
      socket.on('data', (data: string) => {
        head += data;
      });
      socket.on('close', finish);
      socket.on('error', finish);
    });
    expect(result.head).toMatch(/^HTTP\/1\.1 401 /);
    expect(result.head.toLowerCase()).toContain('www-authenticate: bearer');
    expect(result.sent).toBeLessThan(size);
  });

  it("with the real host names the flow passes, and a consent POST without the page's token fails", async () => {
    const port = new URL(host.url).port;
    // Step 1 under each loopback name the server answers to.
    for (const name of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      const health = await withHost(host.url, name, { path: '/health' });
      expect(health.status, name).toBe(200);
    }
    const registered = await withHost(host.url, `localhost:${port}`, {
      method: 'POST',
      path: '/tenant/demo/register',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
    });
    expect(registered.status).toBe(201);
    const clientId = (JSON.parse(registered.body) as { client_id: string }).client_id;
    // Step 2: authorize (single-user mode: no login) → the consent page.
    const { verifier, challenge } = pkcePair();
    const authorize = await fetch(
      `${host.url}/tenant/demo/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 'xyz',
      })}`,
      { redirect: 'manual' },
    );
    const consent = new URL(authorize.headers.get('location')!);
    expect(consent.pathname).toBe('/tenant/demo/consent');
    // Step 3, forged: the POST the page submitted by itself, with req and decision only → 403.
    const forged = await postConsent(consent, {});
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain('anti-forgery');
    // A cross-origin POST, even with the token, is refused too.
    const form = await loadConsentForm(consent);
    expect((await postConsent(consent, { ...form, headers: { origin: 'http://evil.example' } })).status).toBe(
      403,
    );
    // Step 3, real: the browser that loaded the page posts its token; the request was not spent above.
    const approved = await postConsent(consent, form);
    expect(approved.status).toBe(302);
    const code = new URL(approved.headers.get('location')!).searchParams.get('code')!;
    // Step 4: the token, carrying the MCP scope a client that asked for none is granted.
    const token = (await (
      await redeemCode(host.url, { code, verifier, redirectUri: REDIRECT, clientId: clientId })
    ).json()) as { access_token: string; scope: string };
    expect(token.scope).toBe('mcp:tools');
    expect(token.access_token).toBeTypeOf('string');
  });
});

describe('KEYHOLD_ALLOWED_HOSTS for proxies, and single-user mode only on loopback', () => {
  it('refuses to start single-user mode bound to a non-loopback address', async () => {
    await expect(startHost({ HOST: '0.0.0.0', KEYHOLD_ALLOWED_HOSTS: 'proxy.example' })).rejects.toThrow(
      /single-user mode \(SVC_SINGLE_USER=1\) is for loopback only/,
    );
  });

  it('says what to set when the issuer would not be https off loopback, instead of crashing', async () => {
    await expect(
      startHost({ HOST: '0.0.0.0', SVC_SINGLE_USER: '0', KEYHOLD_ALLOWED_HOSTS: 'proxy.example' }),
    ).rejects.toThrow(/set KEYHOLD_PUBLIC_URL=https:/);
  });

  it('refuses to start on a non-loopback address without allowed host names', async () => {
    await expect(startHost({ HOST: '0.0.0.0', SVC_SINGLE_USER: '0' })).rejects.toThrow(
      /KEYHOLD_PUBLIC_URL or KEYHOLD_ALLOWED_HOSTS/,
    );
  });

  it('with KEYHOLD_ALLOW_SINGLE_USER_ON_NETWORK=1 it starts, warns, and answers only the allowed names', async () => {
    const port = await freePort();
    // Off loopback the issuer must be https: the public URL of the proxy in front.
    const host = await startHost({
      HOST: '0.0.0.0',
      PORT: String(port),
      KEYHOLD_PUBLIC_URL: 'https://keyhold.example',
      KEYHOLD_ALLOWED_HOSTS: 'proxy.example',
      KEYHOLD_ALLOW_SINGLE_USER_ON_NETWORK: '1',
    });
    try {
      await eventually(() => expect(host.output()).toContain('Single-user mode is meant for loopback only'));
      const local = `http://127.0.0.1:${port}`;
      expect((await withHost(local, 'keyhold.example', { path: '/health' })).status).toBe(200);
      expect((await withHost(local, 'proxy.example', { path: '/health' })).status).toBe(200);
      expect((await withHost(local, 'Proxy.Example:443', { path: '/health' })).status).toBe(200);
      expect((await withHost(local, `127.0.0.1:${port}`, { path: '/health' })).status).toBe(421);
      expect((await withHost(local, 'rebind.attacker.example', { path: '/health' })).status).toBe(421);
    } finally {
      await host.stop({ removeData: true });
    }
  });

  it('on loopback, KEYHOLD_ALLOWED_HOSTS adds a proxy name to the loopback names', async () => {
    const host = await startHost({ KEYHOLD_ALLOWED_HOSTS: 'proxy.example' });
    try {
      await eventually(() => expect(host.output()).toContain('meant for loopback only'));
      expect((await withHost(host.url, 'proxy.example', { path: '/health' })).status).toBe(200);
      expect((await fetch(`${host.url}/health`)).status).toBe(200);
    } finally {
      await host.stop({ removeData: true });
    }
  });
});
