import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeListener, type NodeListenerOptions } from '@keyhold/adapter-node/legacy';
import type { Handler, Logger } from '@keyhold/core';
import { afterEach } from 'vitest';

const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** Serves `handler` through the real node:http adapter on an ephemeral port; closed after each test. */
export async function serve(handler: Handler, options: NodeListenerOptions = {}): Promise<string> {
  const server = createServer(createNodeListener(handler, { bodyLimitBytes: 8 * 1024 * 1024, ...options }));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A logger that records every line, for assertions. */
export function recordingLogger(): Logger & {
  lines: { level: string; fields: Record<string, unknown>; message?: string }[];
} {
  const lines: { level: string; fields: Record<string, unknown>; message?: string }[] = [];
  const at =
    (level: string) =>
    (fields: Record<string, unknown>, message?: string): void => {
      lines.push({ level, fields, ...(message !== undefined ? { message } : {}) });
    };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** POSTs a JSON body. */
export function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}
