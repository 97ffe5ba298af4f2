import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createClaims } from '../../src/claims.js';
import { createScopedMcpHandler } from '../../src/mcp/node-handler.js';
import { createMemoryClaimStore } from '../../src/memory-store.js';
import { toolModuleTree } from './host-fixture.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** Mounted exactly as the README shows, recording whether any handle() call rejected. */
async function mount(): Promise<{ port: number; rejections: unknown[]; handled: Promise<void>[] }> {
  const mcp = createScopedMcpHandler({
    claims: createClaims({ store: createMemoryClaimStore() }),
    modules: toolModuleTree().modules,
    createServer: () => new McpServer({ name: 't', version: '1' }),
  });
  const rejections: unknown[] = [];
  const handled: Promise<void>[] = [];
  server = createServer((req, res) => {
    handled.push(mcp.handle(req, res).catch((error: unknown) => void rejections.push(error)));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, rejections, handled };
}

function raw(port: number, text: string, { end = true } = {}): Promise<string> {
  return new Promise((resolve) => {
    let answer = '';
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(text);
      if (!end) setImmediate(() => socket.destroy());
    });
    socket.on('data', (chunk) => {
      answer += chunk.toString();
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', () => resolve(answer));
    if (end) socket.setTimeout(2000, () => socket.destroy());
  });
}

describe('createScopedMcpHandler: bad requests never reject handle()', () => {
  it('answers a request target that is not a valid URL with 400', async () => {
    const { port, rejections, handled } = await mount();
    const answer = await raw(port, 'GET http://[ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await Promise.all(handled);
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(rejections).toEqual([]);
  });

  it('survives a client that disconnects in the middle of the body', async () => {
    const { port, rejections, handled } = await mount();
    await raw(
      port,
      'POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":',
      {
        end: false,
      },
    );
    await expect.poll(() => handled.length).toBe(1);
    await Promise.all(handled);
    expect(rejections).toEqual([]);
  });
});
