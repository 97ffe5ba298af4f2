import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { toNodeListener } from '@keyhold/adapter-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testResource } from './fixtures.js';
import { inProcessEndpoint, listToolsRequest } from './helpers.js';

// The endpoint behind toNodeListener of @keyhold/adapter-node on a real node:http server on the port its public URL names (127.0.0.1:<port>/mcp), with
// every server-side socket kept so a test can read how many bytes the server took from it.
let server: Server;
let port: number;
const sockets: Socket[] = [];
const warnings: string[] = [];
let verifications = 0;

beforeAll(async () => {
  let listener!: ReturnType<typeof toNodeListener>;
  server = createServer((req, res) => void listener(req, res));
  server.on('connection', (socket) => sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  const resource = testResource({ now: () => Date.now() }, `http://127.0.0.1:${port}/mcp`);
  // The tenant's keys are imported on its first lookup: done here, so the raw half-closed requests below
  // do not race a cold import.
  await resource.metadata();
  const { endpoint } = inProcessEndpoint({
    resource: {
      ...resource,
      verify(authorization) {
        verifications += 1;
        return resource.verify(authorization);
      },
    },
  });
  const logger = {
    debug() {},
    info() {},
    warn(_fields: unknown, message: string) {
      warnings.push(message);
    },
    error() {},
  };
  listener = toNodeListener(endpoint, { logger: logger as never });
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Sends raw bytes and returns everything the server wrote until it closed the connection. */
function raw(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // Written, not ended: every request here says `connection: close`, so the server hangs up after its
    // answer, and a half-closed client (which a busy listener may take for a gone one) is not in play.
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      answer += chunk;
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

const BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
const post = (hostLines: string, extra = ''): string =>
  `POST /mcp HTTP/1.1\r\n${hostLines}content-type: application/json\r\naccept: application/json, text/event-stream\r\n` +
  `authorization: Bearer alice-token\r\n${extra}content-length: ${BODY.length}\r\nconnection: close\r\n\r\n${BODY}`;

describe('a Host header that is no single host name is answered 421 on the MCP path, like every other path', () => {
  it('refuses two Host headers with 421, even when both name this server', async () => {
    const answer = await raw(post(`host: 127.0.0.1:${port}\r\nhost: 127.0.0.1:${port}\r\n`));
    expect(answer).toMatch(/^HTTP\/1\.1 421 /);
    expect(answer).toContain('Misdirected Request');
  });

  it.each([
    ['user information', 'evil@127.0.0.1'],
    ['a list', `127.0.0.1:${port}, evil.example`],
    ['an empty label', '127..0.1'],
    ['a bad port', '127.0.0.1:99999'],
    ['a bare bracket', '['],
  ])('refuses a Host with %s (421, logged), never a 500', async (_, host) => {
    const before = warnings.length;
    const answer = await raw(post(`host: ${host}\r\n`));
    expect(answer).toMatch(/^HTTP\/1\.1 421 /);
    expect(warnings.length).toBe(before + 1);
  });

  it('keeps 403 and a JSON-RPC error for a well-formed foreign Host, as MCP clients expect', async () => {
    const answer = await raw(post('host: rebind.attacker.example\r\n'));
    expect(answer).toMatch(/^HTTP\/1\.1 403 /);
    expect(answer).toContain('Forbidden: Invalid Host header');
  });

  it('serves one well-formed Host of this server', async () => {
    const answer = await raw(post(`host: 127.0.0.1:${port}\r\n`));
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('answers 421 through fetch too (web-standard runtimes join repeated headers with a comma)', async () => {
    const { endpoint } = inProcessEndpoint();
    const response = await endpoint.fetch(listToolsRequest({ host: '127.0.0.1:8787, 127.0.0.1:8787' }));
    expect(response.status).toBe(421);
    expect((await endpoint.fetch(listToolsRequest({ host: 'a b' }))).status).toBe(421);
  });
});

describe('the bearer token is checked before the body is read: an unauthenticated body is never buffered', () => {
  it('answers a 4 MiB POST without a token 401 with the challenge and closes, having read almost none of it', async () => {
    const size = 4 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const result = await new Promise<{ head: string; sent: number }>((resolve) => {
      let head = '';
      let sent = 0;
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        resolve({ head, sent });
      };
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\n` +
            `content-length: ${size}\r\n\r\n`,
        );
        // Send the body slowly, as a client on a slow link would, until the server hangs up.
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
    expect(result.head.toLowerCase()).toContain('connection: close');
    // The server hung up long before the client could send the whole body…
    expect(result.sent).toBeLessThan(size);
    // …and took little of it from the socket: at most what was in flight, never the 4 MiB the SDK buffers.
    const serverSide = sockets.at(-1)!;
    expect(serverSide.destroyed).toBe(true);
    expect(serverSide.bytesRead).toBeLessThan(1024 * 1024);
  });

  it('still reads and serves the body of an authenticated request, verifying its token once', async () => {
    const before = verifications;
    const answer = await raw(post(`host: 127.0.0.1:${port}\r\n`));
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toContain('"tools"');
    expect(verifications).toBe(before + 1);
  });
});
