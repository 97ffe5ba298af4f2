import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';

/**
 * A TCP proxy in front of a real server that a test can break on purpose: drop every connection, stall
 * (accept and read bytes but forward nothing, as a frozen server or a black-holed network does), or refuse
 * (stop listening, so connecting fails with ECONNREFUSED), then heal again on the same port.
 */
export interface FaultProxy {
  readonly port: number;
  /** Destroys every open connection (both sides), as a server restart does. */
  dropAll(): void;
  /** From now on, bytes in either direction are swallowed, on open connections and new ones. */
  stall(): void;
  /** Stops listening and drops every connection: new connections are refused. */
  refuse(): Promise<void>;
  /** Forwards again (listening again if refused); connections that swallowed bytes are dropped first. */
  heal(): Promise<void>;
  close(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1 (a free port) forwarding to `target`. */
export async function startFaultProxy(target: { host: string; port: number }): Promise<FaultProxy> {
  let mode: 'pass' | 'stall' | 'refuse' = 'pass';
  const pairs = new Set<{ client: Socket; upstream: Socket }>();
  const stalled = new Set<{ client: Socket; upstream: Socket }>();

  const onConnection = (client: Socket): void => {
    const upstream = tcpConnect(target.port, target.host);
    const pair = { client, upstream };
    pairs.add(pair);
    const forget = (): void => {
      pairs.delete(pair);
      stalled.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    const forward = (to: Socket) => (chunk: Buffer) => {
      if (mode === 'stall') {
        stalled.add(pair);
        return;
      }
      to.write(chunk);
    };
    client.on('data', forward(upstream));
    upstream.on('data', forward(client));
    for (const socket of [client, upstream]) {
      socket.on('error', forget);
      socket.on('close', forget);
    }
    if (mode === 'stall') stalled.add(pair);
  };

  let server: Server = createServer(onConnection);
  const listen = (port: number): Promise<number> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve((server.address() as { port: number }).port);
      });
    });
  const port = await listen(0);
  const dropAll = (): void => {
    for (const pair of [...pairs]) {
      pair.client.destroy();
      pair.upstream.destroy();
    }
  };
  const stopListening = (): Promise<void> =>
    new Promise((resolve) => {
      server.close(() => resolve());
      dropAll();
    });

  return {
    port,
    dropAll,
    stall() {
      mode = 'stall';
    },
    async refuse() {
      mode = 'refuse';
      await stopListening();
    },
    async heal() {
      for (const pair of [...stalled]) {
        pair.client.destroy();
        pair.upstream.destroy();
      }
      stalled.clear();
      if (mode === 'refuse') {
        server = createServer(onConnection);
        await listen(port);
      }
      mode = 'pass';
    },
    async close() {
      if (mode !== 'refuse') await stopListening();
    },
  };
}
