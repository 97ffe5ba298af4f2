import type { Logger } from '@keyhold/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostileAnswer, HostilePeer } from '../../../../test-support/hostile-peer.js';
import { startHostilePeer } from '../../../../test-support/hostile-peer.js';
import type { ElicitationRequiredError, TokenBrokerOptions } from '../../src/index.js';
import { TokenVaultError } from '../../src/index.js';
import { ACME_ASK as ask, authorizeInBrowser, elicitationOf, getRequest, makeHarness } from '../fixtures.js';

// A hostile third-party provider on a real socket (no msw here: the reads must meet real streams). Each
// misbehaving answer fails within the token request time limit, reads no more than the byte cap, stores
// nothing, and the same broker serves the next, honest answer.

const TIMEOUT_MS = 600;

let peer: HostilePeer;
beforeAll(async () => {
  peer = await startHostilePeer();
});
afterAll(() => peer.close());

const HOSTILE: readonly [string, HostileAnswer][] = [
  ['an endless access_token', { kind: 'endless', prefix: '{"access_token":"' }],
  [
    'a huge complete answer (2 MB access token)',
    { kind: 'huge', body: JSON.stringify({ access_token: 'A'.repeat(2_000_000), expires_in: 3600 }) },
  ],
  [
    'an answer trickled one byte per 100 ms',
    { kind: 'trickle', body: '{"access_token":"slow"}', intervalMs: 100 },
  ],
];

function harness(path: string, overrides: Partial<TokenBrokerOptions> = {}, issuer?: string) {
  return makeHarness({
    tokenRequestTimeoutMs: TIMEOUT_MS,
    refreshBufferSeconds: 60,
    providers: [
      {
        id: 'acme',
        name: 'Acme',
        authorizationUrl: 'https://acme.example/oauth/authorize',
        tokenUrl: `${peer.origin}${path}`,
        scopes: ['read'],
        clientId: 'acme-client',
        clientSecret: 'acme-secret',
        ...(issuer === undefined ? {} : { issuer }),
      },
    ],
    ...overrides,
  });
}

async function elicitation(h: ReturnType<typeof harness>): Promise<ElicitationRequiredError> {
  return await elicitationOf(h.broker.requestToken(ask, h.context));
}

async function connectWith(h: ReturnType<typeof harness>, path: string, token: string): Promise<void> {
  peer.route(path, {
    kind: 'plain',
    body: JSON.stringify({ access_token: token, refresh_token: 'refresh-1', expires_in: 3600 }),
  });
  const { callback } = await authorizeInBrowser(h.broker, (await elicitation(h)).elicitationUrl);
  expect((await h.broker.callback(callback)).status).toBe(200);
}

/** The reader of the last answer must have hung up within the time limit (with slack). */
async function expectReadStopped(): Promise<void> {
  expect((await peer.lastAnswerClosed(TIMEOUT_MS * 3)).isClosed).toBe(true);
}

describe('token endpoint answers are read within a byte cap and one time limit (code exchange)', () => {
  it.each(HOSTILE)(
    '%s: a 502 page within the time limit, no grant, and the host keeps serving',
    async (name, answer) => {
      const path = `/exchange/${encodeURIComponent(name)}`;
      const h = harness(path);
      peer.route(path, answer);
      const error = await elicitation(h);
      const { callback } = await authorizeInBrowser(h.broker, error.elicitationUrl);
      const started = Date.now();
      const page = await h.broker.callback(callback);
      expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 1000);
      expect(page.status).toBe(502);
      expect(await h.storage.grants.list({ tenantId: 'tenant-a' })).toEqual([]);
      await expectReadStopped();
      // The endless and trickled answers were cut off, never read to their end.
      if (answer.kind !== 'huge') expect(peer.answers.at(-1)!.finished).toBe(false);

      // The same broker, the same link: an honest answer now connects.
      peer.route(path, {
        kind: 'plain',
        body: JSON.stringify({ access_token: 'access-ok', expires_in: 3600 }),
      });
      const again = await authorizeInBrowser(h.broker, error.elicitationUrl);
      expect((await h.broker.callback(again.callback)).status).toBe(200);
      expect(await h.broker.requestToken(ask, h.context)).toEqual({ ok: true, accessToken: 'access-ok' });
    },
  );
});

describe('token endpoint answers are read within a byte cap and one time limit (refresh)', () => {
  it.each(HOSTILE)(
    '%s: ERR_PROVIDER_UNAVAILABLE within the time limit, grant unchanged',
    async (name, answer) => {
      const path = `/refresh/${encodeURIComponent(name)}`;
      const h = harness(path);
      await connectWith(h, path, 'access-1');
      const before = await h.storage.grants.list({ tenantId: 'tenant-a' });
      h.clock.advance(3600_000 + 1);
      peer.route(path, answer);
      const started = Date.now();
      const failure = await h.broker.requestToken(ask, h.context).catch((e: unknown) => e);
      expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 1000);
      expect(failure).toBeInstanceOf(TokenVaultError);
      expect((failure as TokenVaultError).code).toBe('ERR_PROVIDER_UNAVAILABLE');
      expect(await h.storage.grants.list({ tenantId: 'tenant-a' })).toEqual(before);
      await expectReadStopped();

      peer.route(path, {
        kind: 'plain',
        body: JSON.stringify({ access_token: 'access-2', expires_in: 3600 }),
      });
      expect(await h.broker.requestToken(ask, h.context)).toEqual({ ok: true, accessToken: 'access-2' });
    },
  );
});

describe('a token over maxTokenBytes is refused as a provider error and never stored', () => {
  const big = 'T'.repeat(20_000); // under the 64 KiB answer cap, over the 16 KiB token cap

  it('code exchange: 502, no grant', async () => {
    const path = '/big-token/exchange';
    const h = harness(path);
    peer.route(path, { kind: 'plain', body: JSON.stringify({ access_token: big }) });
    const { callback } = await authorizeInBrowser(h.broker, (await elicitation(h)).elicitationUrl);
    expect((await h.broker.callback(callback)).status).toBe(502);
    expect(await h.storage.grants.list({ tenantId: 'tenant-a' })).toEqual([]);
  });

  it('code exchange: a huge refresh_token is refused the same way', async () => {
    const path = '/big-token/refresh-token';
    const h = harness(path);
    peer.route(path, { kind: 'plain', body: JSON.stringify({ access_token: 'ok', refresh_token: big }) });
    const { callback } = await authorizeInBrowser(h.broker, (await elicitation(h)).elicitationUrl);
    expect((await h.broker.callback(callback)).status).toBe(502);
    expect(await h.storage.grants.list({ tenantId: 'tenant-a' })).toEqual([]);
  });

  it('refresh: ERR_PROVIDER_UNAVAILABLE, the stored grant unchanged', async () => {
    const path = '/big-token/refresh';
    const h = harness(path);
    await connectWith(h, path, 'access-1');
    const before = await h.storage.grants.list({ tenantId: 'tenant-a' });
    h.clock.advance(3600_000 + 1);
    peer.route(path, { kind: 'plain', body: JSON.stringify({ access_token: big, expires_in: 3600 }) });
    const failure = await h.broker.requestToken(ask, h.context).catch((e: unknown) => e);
    expect((failure as TokenVaultError).code).toBe('ERR_PROVIDER_UNAVAILABLE');
    expect(await h.storage.grants.list({ tenantId: 'tenant-a' })).toEqual(before);
  });

  it('the cap counts UTF-8 bytes, not characters: 6 000 three-byte characters are over 16 KiB', async () => {
    const path = '/big-token/utf8';
    const h = harness(path);
    peer.route(path, { kind: 'plain', body: JSON.stringify({ access_token: '€'.repeat(6_000) }) });
    const { callback } = await authorizeInBrowser(h.broker, (await elicitation(h)).elicitationUrl);
    expect((await h.broker.callback(callback)).status).toBe(502);
    expect(await h.storage.grants.list({ tenantId: 'tenant-a' })).toEqual([]);
  });

  it('the caps are options: a larger maxTokenBytes accepts the same token', async () => {
    const path = '/big-token/allowed';
    const h = harness(path, { maxTokenBytes: 32_768 });
    peer.route(path, { kind: 'plain', body: JSON.stringify({ access_token: big }) });
    const { callback } = await authorizeInBrowser(h.broker, (await elicitation(h)).elicitationUrl);
    expect((await h.broker.callback(callback)).status).toBe(200);
    expect(await h.broker.requestToken(ask, h.context)).toEqual({ ok: true, accessToken: big });
  });
});

describe("a provider's error text reaches the page and the log truncated and without control characters", () => {
  function recordingLogger(lines: unknown[]): Logger {
    const record = (fields: unknown) => {
      lines.push(fields);
    };
    return { debug: record, info: record, warn: record, error: record };
  }

  it('a 5 MB error value in the token answer', async () => {
    const path = '/long-error';
    const lines: unknown[] = [];
    const h = harness(path, { maxResponseBytes: 6_000_000, logger: recordingLogger(lines) });
    peer.route(path, {
      kind: 'plain',
      status: 400,
      body: JSON.stringify({ error: `bad\u0000\u001b[31m${'E'.repeat(5_000_000)}` }),
    });
    const { callback } = await authorizeInBrowser(h.broker, (await elicitation(h)).elicitationUrl);
    const page = await h.broker.callback(callback);
    expect(page.status).toBe(400);
    expect(String(page.body).length).toBeLessThan(2000);
    expect(page.body).toContain(`bad[31m${'E'.repeat(249)}…`);
    expect(page.body).not.toContain('\u001b');
    const logged = JSON.stringify(lines);
    expect(logged.length).toBeLessThan(5000);
    expect(logged).not.toContain('\\u001b');
  });

  it('a long error in the callback redirect', async () => {
    const lines: unknown[] = [];
    const h = harness('/unused', { logger: recordingLogger(lines) });
    const { callback } = await authorizeInBrowser(h.broker, (await elicitation(h)).elicitationUrl);
    const params = new URLSearchParams(callback.query);
    params.delete('code');
    params.set('error', `access_denied${'x'.repeat(100_000)}`);
    const page = await h.broker.callback({ ...callback, query: params.toString() });
    expect(page.status).toBe(400);
    expect(page.body).toContain(`access_denied${'x'.repeat(243)}…`);
    expect(page.body).not.toContain('x'.repeat(300));
    expect(JSON.stringify(lines).length).toBeLessThan(5000);
  });

  it('a callback redirect with control characters is refused as malformed, its text not echoed', async () => {
    const h = harness('/unused');
    const { callback } = await authorizeInBrowser(h.broker, (await elicitation(h)).elicitationUrl);
    const params = new URLSearchParams(callback.query);
    params.delete('code');
    params.set('error', 'access_denied\r\n\u001b[31mforged');
    const page = await h.broker.callback({ ...callback, query: params.toString() });
    expect(page.status).toBe(400);
    expect(page.body).toContain('control character');
    expect(page.body).not.toContain('forged');
  });
});

describe('RFC 9207: a provider configured with an issuer must send it back as iss', () => {
  async function callbackWithIss(iss: string | undefined) {
    const path = `/iss/${iss ?? 'none'}`;
    const h = harness(path, {}, 'https://acme.example');
    peer.route(path, { kind: 'plain', body: JSON.stringify({ access_token: 'access-iss' }) });
    const { callback } = await authorizeInBrowser(h.broker, (await elicitation(h)).elicitationUrl);
    const params = new URLSearchParams(callback.query);
    if (iss !== undefined) params.set('iss', iss);
    const page = await h.broker.callback({ ...callback, query: params.toString() });
    return { h, page, grants: await h.storage.grants.list({ tenantId: 'tenant-a' }) };
  }

  it('a matching iss is accepted', async () => {
    const { page, grants } = await callbackWithIss('https://acme.example');
    expect(page.status).toBe(200);
    expect(grants).toHaveLength(1);
  });

  it('another issuer is refused with a clear page; no code exchange, no grant', async () => {
    const before = peer.answers.length;
    const { page, grants } = await callbackWithIss('https://evil.example');
    expect(page.status).toBe(400);
    expect(page.body).toContain('does not come from Acme');
    expect(grants).toEqual([]);
    expect(peer.answers.length).toBe(before);
  });

  it('a missing iss is refused', async () => {
    const { page, grants } = await callbackWithIss(undefined);
    expect(page.status).toBe(400);
    expect(page.body).toContain('missing');
    expect(grants).toEqual([]);
  });

  it('a provider without an issuer ignores iss (nothing to compare with)', async () => {
    const path = '/iss/unconfigured';
    const h = harness(path);
    peer.route(path, { kind: 'plain', body: JSON.stringify({ access_token: 'access-x' }) });
    const { callback } = await authorizeInBrowser(h.broker, (await elicitation(h)).elicitationUrl);
    const page = await h.broker.callback({
      ...callback,
      query: `${callback.query}&iss=https%3A%2F%2Fany.example`,
    });
    expect(page.status).toBe(200);
  });
});

describe('per-user bound on pending rows (maxPendingPerUser)', () => {
  it('tool calls without a grant: at most maxPendingPerUser live elicitations; the oldest links stop working', async () => {
    const h = harness('/unused', { maxPendingPerUser: 3 });
    const links: string[] = [];
    for (let i = 0; i < 5; i++) {
      links.push((await elicitation(h)).elicitationUrl);
      h.clock.advance(1);
    }
    const statuses = [];
    for (const link of links) statuses.push((await h.broker.connect(getRequest(link, 'user-1'))).status);
    expect(statuses).toEqual([404, 404, 302, 302, 302]);
    // Another user is not spent by this one.
    const other = makeHarness({ maxPendingPerUser: 3 }, { storage: h.storage, clock: h.clock });
    const otherError = await elicitationOf(
      other.broker.requestToken(ask, { ...other.context, userId: 'user-2' }),
    );
    expect((await other.broker.connect(getRequest(otherError.elicitationUrl, 'user-2'))).status).toBe(302);
    expect((await h.broker.connect(getRequest(links[4]!, 'user-1'))).status).toBe(302);
  });

  it('opened connect links: at most maxPendingPerUser pending authorizations; the oldest state is refused', async () => {
    const h = harness('/pending-cap', { maxPendingPerUser: 2 });
    peer.route('/pending-cap', { kind: 'plain', body: JSON.stringify({ access_token: 'access-cap' }) });
    const link = (await elicitation(h)).elicitationUrl;
    const callbacks = [];
    for (let i = 0; i < 4; i++) {
      callbacks.push((await authorizeInBrowser(h.broker, link)).callback);
      h.clock.advance(1);
    }
    expect((await h.broker.callback(callbacks[0]!)).status).toBe(400);
    expect((await h.broker.callback(callbacks[3]!)).status).toBe(200);
  });

  it('maxPendingPerUser is validated', () => {
    expect(() => harness('/x', { maxPendingPerUser: 0 })).toThrow(TokenVaultError);
    expect(() => harness('/x', { maxResponseBytes: -1 })).toThrow(TokenVaultError);
    expect(() => harness('/x', { maxTokenBytes: 1.5 })).toThrow(TokenVaultError);
  });
});
