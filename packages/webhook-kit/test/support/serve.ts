import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ToNodeListenerOptions, toNodeListener } from '@keyhold/adapter-node';
import type { Area, Logger } from '@keyhold/core';
import { afterEach } from 'vitest';

const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** Serves `area` through the real node:http adapter on an ephemeral port; closed after each test. */
export async function serve(area: Area, options: ToNodeListenerOptions = {}): Promise<string> {
  // Only the area's face: the internal `WithHandle` factories return a callable, which toNodeListener would
  // take for a bare fetch function.
  const face: Area = {
    fetch: (request, info) => area.fetch(request, info),
    ownsPath: (p) => area.ownsPath(p),
  };
  const server = createServer(toNodeListener(face, options));
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
