import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@keyhold/core';
import { silentLogger } from '@keyhold/core';

/** Options of {@link serve}. */
export interface ServeOptions {
  /** Port to listen on; 0 picks a free one (default 0). */
  port?: number;
  /** Interface to bind (default `127.0.0.1`). */
  hostname?: string;
  /** How long in-flight requests may take to finish after shutdown begins (default 10 000 ms). */
  shutdownTimeoutMs?: number;
  /** Run after the server has stopped, in order: close stores, flush logs. */
  onClose?: ReadonlyArray<() => void | Promise<void>>;
  logger?: Logger;
}

/** A running server from {@link serve}. */
export interface RunningServer {
  /** `http://host:port` of the bound address. */
  readonly url: string;
  readonly server: Server;
  /**
   * Stops accepting connections, lets in-flight requests finish (up to the timeout, after which the
   * remaining connections are cut), then runs the `onClose` hooks. Safe to call more than once.
   */
  close(): Promise<void>;
}

/**
 * Starts a `node:http` server for a listener and returns its URL and a graceful `close()`.
 *
 * @example
 * ```ts
 * const running = await serve(createNodeListener(router.handle), { port: 8787, onClose: [() => store.close()] });
 * process.once('SIGTERM', () => void running.close());
 * ```
 */
export async function serve(
  listener: (request: IncomingMessage, response: ServerResponse) => void,
  options: ServeOptions = {},
): Promise<RunningServer> {
  const logger = options.logger ?? silentLogger;
  const timeoutMs = options.shutdownTimeoutMs ?? 10_000;
  const hostname = options.hostname ?? '127.0.0.1';
  const server = createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, hostname, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = hostname.includes(':') ? `[${hostname}]` : hostname;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => {
        logger.warn({ timeoutMs }, 'shutdown timeout reached; closing remaining connections');
        server.closeAllConnections();
      }, timeoutMs);
      timer.unref();
      await stopped;
      clearTimeout(timer);
      for (const hook of options.onClose ?? []) {
        try {
          await hook();
        } catch (error) {
          logger.error({ err: error }, 'error in shutdown hook');
        }
      }
    })();
    return closing;
  };
  return { url: `http://${host}:${port}`, server, close };
}
