import { readFileSync } from 'node:fs';
import type { Server } from 'node:https';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ForbiddenAddressError } from '../../src/cimd/fetch-contract.js';
import { createCimdResolver } from '../../src/cimd/resolver.js';
import type { DnsLookup } from '../../src/cimd/safe-fetch.js';
import { createSafeFetch } from '../../src/cimd/safe-fetch.js';
import { OAuthCoreError } from '../../src/errors.js';

// A real TLS server on loopback with a certificate for cimd.test: the fetcher talks to it for real; the
// injected lookup plays DNS. Loopback is refused unless a test exempts 127.0.0.1 explicitly.
const ca = readFileSync(new URL('./fixtures/cimd-test-cert.pem', import.meta.url), 'utf8');
const key = readFileSync(new URL('./fixtures/cimd-test-key.pem', import.meta.url), 'utf8');
let server: Server;
let port = 0;
let connections = 0;
const seen: { url: string; ifNoneMatch: string | undefined }[] = [];

beforeAll(async () => {
  server = createServer({ key, cert: ca }, (request, response) => {
    seen.push({ url: request.url ?? '', ifNoneMatch: request.headers['if-none-match'] });
    const clientId = `https://cimd.test:${port}${request.url}`;
    if (request.url === '/endless') {
      // Streams forever without a length: only the reader's cap ends it.
      response.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => response.write(' '.repeat(1024)), 1);
      response.on('close', () => clearInterval(timer));
    } else if (request.url === '/silent') {
      // Accepts the request and never answers.
    } else if (request.url === '/moved') {
      response.writeHead(302, { location: '/client.json' }).end();
    } else if (request.headers['if-none-match'] === '"e1"') {
      response.writeHead(304, { etag: '"e1"' }).end();
    } else {
      response.writeHead(200, { 'content-type': 'application/json', etag: '"e1"' }).end(
        JSON.stringify({
          client_id: clientId,
          client_name: 'Real',
          redirect_uris: ['https://cimd.test/cb'],
        }),
      );
    }
  });
  server.on('secureConnection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(
  () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
);

const toLoopback: DnsLookup = async () => [{ address: '127.0.0.1', family: 4 }];

describe('createSafeFetch: talks https to public addresses only', () => {
  it('fetches over a real TLS connection when the address is permitted', async () => {
    const safeFetch = createSafeFetch({ lookup: toLoopback, allowedAddresses: ['127.0.0.1'], ca });
    const response = await safeFetch(`https://cimd.test:${port}/client.json`, {
      headers: { accept: 'application/json' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toBe('"e1"');
    expect(await response.json()).toMatchObject({ client_name: 'Real' });
  });

  it('returns a redirect as it is and never follows it', async () => {
    const safeFetch = createSafeFetch({ lookup: toLoopback, allowedAddresses: ['127.0.0.1'], ca });
    const before = seen.length;
    const response = await safeFetch(`https://cimd.test:${port}/moved`, {});
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/client.json');
    expect(seen.slice(before).map((entry) => entry.url)).toEqual(['/moved']);
  });

  it('refuses a name resolving to loopback before connecting (the check runs inside the connect lookup)', async () => {
    const before = connections;
    const safeFetch = createSafeFetch({ lookup: toLoopback, ca });
    await expect(safeFetch(`https://cimd.test:${port}/client.json`, {})).rejects.toBeInstanceOf(
      ForbiddenAddressError,
    );
    expect(connections).toBe(before);
  });

  it('checks every connection anew: an answer that changes to a private address (rebinding) is refused', async () => {
    const answers = ['127.0.0.1', '10.0.0.1'];
    const lookup = vi.fn<DnsLookup>(async () => [{ address: answers.shift() ?? '10.0.0.1', family: 4 }]);
    const safeFetch = createSafeFetch({ lookup, allowedAddresses: ['127.0.0.1'], ca });
    expect((await safeFetch(`https://cimd.test:${port}/client.json`, {})).status).toBe(200);
    await expect(safeFetch(`https://cimd.test:${port}/client.json`, {})).rejects.toMatchObject({
      code: 'ERR_FORBIDDEN_ADDRESS',
      address: '10.0.0.1',
    });
    expect(lookup).toHaveBeenCalledTimes(2);
  });

  it.each([
    [[{ address: '192.168.0.10', family: 4 }]],
    [[{ address: '::ffff:127.0.0.1', family: 6 }]],
    [[{ address: 'fd00::1', family: 6 }]],
    [
      [
        { address: '93.184.215.14', family: 4 },
        { address: '10.0.0.1', family: 4 },
      ],
    ],
  ])('refuses a name resolving to %o (any forbidden address refuses the name)', async (addresses) => {
    const safeFetch = createSafeFetch({ lookup: async () => addresses });
    await expect(safeFetch('https://app.example/client.json', {})).rejects.toBeInstanceOf(
      ForbiddenAddressError,
    );
  });

  it.each([
    ['https://127.0.0.1/client.json'],
    ['https://[::1]/client.json'],
    ['https://[::ffff:a00:1]/client.json'],
    ['https://169.254.169.254/latest'],
  ])('refuses the IP literal %s without a lookup', async (url) => {
    const lookup = vi.fn<DnsLookup>(async () => []);
    await expect(createSafeFetch({ lookup })(url, {})).rejects.toBeInstanceOf(ForbiddenAddressError);
    expect(lookup).not.toHaveBeenCalled();
  });

  it('refuses with a ForbiddenAddressError, which is an OAuthCoreError coded ERR_FORBIDDEN_ADDRESS', async () => {
    const error = await createSafeFetch({ lookup: async () => [] })(
      'https://127.0.0.1/client.json',
      {},
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuthCoreError);
    expect(error).toMatchObject({ name: 'ForbiddenAddressError', code: 'ERR_FORBIDDEN_ADDRESS' });
  });

  it('refuses plain http', async () => {
    await expect(createSafeFetch()('http://app.example/client.json', {})).rejects.toThrow(/non-https/);
  });
});

describe('the resolver over the real fetcher', () => {
  it('resolves, then revalidates with If-None-Match and keeps the entry on 304', async () => {
    let now = 0;
    const resolver = createCimdResolver({
      fetch: createSafeFetch({ lookup: toLoopback, allowedAddresses: ['127.0.0.1'], ca }),
      clock: { now: () => now },
    });
    const clientId = `https://cimd.test:${port}/client.json`;
    const before = seen.length;
    expect(await resolver.resolve(clientId, { allowedDomains: ['cimd.test'] })).toMatchObject({
      ok: true,
      cached: false,
    });
    now += 300_000;
    expect(await resolver.resolve(clientId, { allowedDomains: ['cimd.test'] })).toMatchObject({
      ok: true,
      cached: true,
      document: { client_name: 'Real' },
    });
    expect(seen.slice(before).map((entry) => entry.ifNoneMatch)).toEqual([undefined, '"e1"']);
  });

  it('stops reading an endless body at the 5 KB cap (too_large) and closes the connection', async () => {
    const resolver = createCimdResolver({
      fetch: createSafeFetch({ lookup: toLoopback, allowedAddresses: ['127.0.0.1'], ca }),
    });
    expect(
      await resolver.resolve(`https://cimd.test:${port}/endless`, { allowedDomains: ['cimd.test'] }),
    ).toMatchObject({ ok: false, error: 'too_large' });
  });

  it('gives up on a server that never answers (timeout)', async () => {
    const resolver = createCimdResolver({
      fetch: createSafeFetch({ lookup: toLoopback, allowedAddresses: ['127.0.0.1'], ca }),
      timeoutMs: 150,
    });
    expect(
      await resolver.resolve(`https://cimd.test:${port}/silent`, { allowedDomains: ['cimd.test'] }),
    ).toMatchObject({ ok: false, error: 'timeout' });
  });

  it('maps a loopback resolution to forbidden_address', async () => {
    const resolver = createCimdResolver({ fetch: createSafeFetch({ lookup: toLoopback, ca }) });
    expect(
      await resolver.resolve(`https://cimd.test:${port}/client.json`, { allowedDomains: ['cimd.test'] }),
    ).toMatchObject({ ok: false, error: 'forbidden_address' });
  });
});
