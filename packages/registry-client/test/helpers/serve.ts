import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ToNodeListenerOptions, toNodeListener } from '@keyhold/adapter-node';
import type { Area } from '@keyhold/core';

export interface Running {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<Running> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Serves a Keyhold area through the real node:http adapter on a free loopback port. */
export function serveHandler(area: Area, options: ToNodeListenerOptions = {}): Promise<Running> {
  // Only the area's face: the internal `WithHandle` factories return a callable, which toNodeListener would
  // take for a bare fetch function.
  const face: Area = {
    fetch: (request, info) => area.fetch(request, info),
    ownsPath: (p) => area.ownsPath(p),
  };
  return listen(createServer(toNodeListener(face, options)));
}

/** Serves a raw node:http listener (for servers that misbehave on purpose). */
export function serveRaw(listener: (req: IncomingMessage, res: ServerResponse) => void): Promise<Running> {
  return listen(createServer(listener));
}

/** A loopback port with nothing listening on it (bound, then released). */
export async function closedPort(): Promise<number> {
  const running = await listen(createServer());
  await running.close();
  return running.port;
}
