import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import { createServer } from 'node:net';

/** A free TCP port on loopback. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A load balancer in front of host instances: the public URL clients know. */
export interface Balancer {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Starts a balancer on `port` (0: any free one) that sends each request to the port `pick()` answers, with
 * the Host header and the body passed through and the response (SSE included) streamed back.
 */
export async function startBalancer(port: number, pick: () => number): Promise<Balancer> {
  const server = createHttpServer((incoming, outgoing) => {
    const forwarded = httpRequest(
      {
        host: '127.0.0.1',
        port: pick(),
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.writeHead(502).end());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: bound } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${bound}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
