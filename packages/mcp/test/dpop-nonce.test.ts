// RFC 9449 §9: a served request whose proof carried an older resource nonce answers with the current one
// (`DPoP-Nonce`), so a client that follows the header is never refused for a stale nonce.
import { randomUUID } from 'node:crypto';
import { createManualClock } from '@keyhold/core';
import {
  createAuthorizationServer,
  createMemoryStorage,
  createStaticTenants,
  generateSigningKey,
} from '@keyhold/oauth-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createMcpEndpoint } from '../src/index.js';
import { createMcpRequestGate } from '../src/sdk-v1.js';
import { notes } from './fixtures.js';

const BASE = 'https://app.example';
const MCP_URL = `${BASE}/mcp`;
const TOKEN_URL = `${BASE}/tenant/demo/token`;

let privateKey: CryptoKey;
let publicJwk: Record<string, string | undefined>;
beforeAll(async () => {
  const pair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
    'sign',
    'verify',
  ]);
  privateKey = pair.privateKey;
  const { kty, crv, x, y } = await crypto.subtle.exportKey('jwk', pair.publicKey);
  publicJwk = { kty, crv, x, y };
});

const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An ES256 DPoP proof (RFC 9449 §4.2), signed with WebCrypto (its ECDSA signature is JWS's r‖s). */
async function proof(htm: string, htu: string, nowMs: number, extra: Record<string, string> = {}) {
  const claims = { jti: randomUUID(), htm, htu, iat: Math.floor(nowMs / 1000), ...extra };
  const input = `${part({ alg: 'ES256', typ: 'dpop+jwt', jwk: publicJwk })}.${part(claims)}`;
  const signature = await crypto.subtle.sign(
    { name: 'ECDSA', hash: 'SHA-256' },
    privateKey,
    new TextEncoder().encode(input),
  );
  return `${input}.${Buffer.from(signature).toString('base64url')}`;
}

async function setup() {
  const clock = createManualClock(Date.parse('2026-03-01T12:00:00Z'));
  const oauth = createAuthorizationServer({
    baseUrl: BASE,
    clock,
    tenants: createStaticTenants({ demo: { signingKeys: [await generateSigningKey('ES256', 'k1')] } }),
    storage: createMemoryStorage(),
    dpop: { nonceSecret: 'a-deployment-nonce-secret-of-32-bytes!' },
  });
  const resource = oauth.protectedResource('demo', { url: MCP_URL, allowMachineSubjects: true });
  const endpoint = createMcpEndpoint({
    resource,
    serverInfo: { name: 'nonce-app', version: '1.0.0' },
    toolModules: [notes],
  });
  const created = await oauth.clients.provision('demo', {
    grantTypes: ['client_credentials'],
    scope: 'mcp:tools',
  });
  const basic = `Basic ${Buffer.from(`${created.clientId}:${created.clientSecret}`).toString('base64')}`;
  const tokenRequest = async (extra: Record<string, string> = {}) =>
    oauth.fetch(
      new Request(TOKEN_URL, {
        method: 'POST',
        headers: {
          authorization: basic,
          'content-type': 'application/x-www-form-urlencoded',
          dpop: await proof('POST', TOKEN_URL, clock.now(), extra),
        },
        body: 'grant_type=client_credentials&scope=mcp%3Atools',
      }),
    );
  const challenged = await tokenRequest();
  const asNonce = String(challenged.headers.get('dpop-nonce'));
  const issued = (await (await tokenRequest({ nonce: asNonce })).json()) as { access_token: string };
  const token = issued.access_token;
  const headersWith = async (nonce?: string) => ({
    host: 'app.example',
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25',
    authorization: `DPoP ${token}`,
    dpop: await proof('POST', MCP_URL, clock.now(), {
      ath: Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token))).toString(
        'base64url',
      ),
      ...(nonce === undefined ? {} : { nonce }),
    }),
  });
  const call = async (nonce?: string) =>
    endpoint.fetch(
      new Request(MCP_URL, {
        method: 'POST',
        headers: await headersWith(nonce),
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      }),
    );
  return { clock, resource, call, headersWith };
}

describe('the MCP endpoint hands out the current resource nonce with a served request whose nonce is older', () => {
  it('no DPoP-Nonce with the current nonce; the current one after a step; the client stays served for five steps', async () => {
    const { clock, call } = await setup();
    const challenged = await call();
    expect(challenged.status).toBe(401);
    let nonce = String(challenged.headers.get('dpop-nonce'));
    const current = await call(nonce);
    expect(current.status).toBe(200);
    expect(current.headers.get('dpop-nonce')).toBeNull();
    // Five steps: without the fresh nonces, the first one would be refused from the third on.
    for (let step = 0; step < 5; step++) {
      clock.advance(60_000);
      const served = await call(nonce);
      expect(served.status).toBe(200);
      const fresh = served.headers.get('dpop-nonce');
      expect(fresh).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(fresh).not.toBe(nonce);
      nonce = String(fresh);
    }
  });
});

describe('the SDK v1 request gate checks a proof against the request’s own method and reports the fresh nonce', () => {
  it('a POST with a proof for POST passes the gate, with dpopNonce when the nonce is an older step’s', async () => {
    const { clock, resource, call, headersWith } = await setup();
    const nonce = String((await call()).headers.get('dpop-nonce'));
    clock.advance(60_000);
    const gate = createMcpRequestGate({ resource });
    const outcome = await gate.check({ method: 'POST', url: '/mcp', headers: await headersWith(nonce) });
    expect(outcome.ok).toBe(true);
    expect(outcome.ok && outcome.dpopNonce).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(outcome.ok && outcome.dpopNonce).not.toBe(nonce);
  });

  it('a method the Request class refuses is read as GET, so a POST proof does not match it (a refusal, no crash)', async () => {
    const { call, resource, headersWith } = await setup();
    const nonce = String((await call()).headers.get('dpop-nonce'));
    const gate = createMcpRequestGate({ resource });
    const outcome = await gate.check({ method: 'TRACE', url: '/mcp', headers: await headersWith(nonce) });
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.status).toBe(401);
  });
});
