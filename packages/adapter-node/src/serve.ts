import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@keyhold/core';
import { silentLogger } from '@keyhold/core';
import { allowedHostsFor, isLoopbackHostname, loopbackHosts } from '@keyhold/internal';
import { optionCheck } from './errors.js';
import { checkedAllowedHosts, guardHosts } from './host-guard.js';

/** Options of {@link serve}. */
export interface ServeOptions {
  /** Port to listen on; 0 picks a free one (default 0). */
  port?: number;
  /** Interface to bind (default `127.0.0.1`). */
  hostname?: string;
  /**
   * The Host values the server answers to; every other request gets 421 (`misdirected_request`, with
   * `Connection: close`) before the listener runs. Bound to loopback, `127.0.0.1`, `localhost` and `[::1]` with the bound port are
   * always allowed and this list adds to them (a reverse proxy's public name, for instance). Bound to any
   * other address (`0.0.0.0`, a LAN address), the list is required: `serve` throws without it. `'any'`
   * turns Host validation off — only for a server that is reachable solely through a proxy that checks
   * Host itself.
   */
  allowedHosts?: readonly string[] | 'any';
  /**
   * Paths (exact, without the query) whose handler checks Host itself against the same names: a request there
   * with one well-formed `Host` is passed through unchecked (the MCP endpoint answers a foreign Host 403 with
   * a JSON-RPC error, as MCP clients expect); a repeated or malformed `Host` still gets 421. Default: none.
   */
  selfGuardedPaths?: readonly string[];
  /** Time allowed to receive the request headers (default 10 000 ms); slower clients get 408 and are cut. */
  headersTimeoutMs?: number;
  /**
   * Time allowed to receive the whole request, headers and body (default 30 000 ms; at least
   * `headersTimeoutMs`). Responses (an SSE stream, a long tool call) are not limited by it.
   */
  requestTimeoutMs?: number;
  /**
   * How often Node checks connections against the two timeouts above (default 1 000 ms; Node's own default
   * of 30 s would let a slow sender hold a connection for up to 40 s).
   */
  connectionsCheckingIntervalMs?: number;
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
  /** The Host values the server answers to (with the bound port), or `'any'` when validation is off. */
  readonly allowedHosts: readonly string[] | 'any';
  /**
   * Stops accepting connections, lets in-flight requests finish (up to the timeout, after which the
   * remaining connections are cut), then runs the `onClose` hooks. Safe to call more than once.
   */
  close(): Promise<void>;
}

/**
 * Starts a `node:http` server for a listener and returns its URL and a graceful `close()`. Host validation
 * is on by default (see {@link ServeOptions.allowedHosts}); so are header and request timeouts.
 *
 * Throws `NodeAdapterError` `ERR_INVALID_OPTIONS` before binding for a bad option: a timeout that is not a
 * whole number of ms, a port outside 0–65535, an `allowedHosts` entry that is no host, or a non-loopback
 * address without `allowedHosts`.
 *
 * @example
 * ```ts
 * import { serve, toNodeListener } from '@keyhold/adapter-node';
 * import type { Area } from '@keyhold/core';
 * declare const keyhold: Area, store: { close(): Promise<void> };
 * const running = await serve(toNodeListener(keyhold), { port: 8787, onClose: [() => store.close()] });
 * process.once('SIGTERM', () => void running.close());
 * // Behind a proxy on another interface:
 * await serve(toNodeListener(keyhold), { hostname: '0.0.0.0', port: 8787, allowedHosts: ['auth.example.com'] });
 * ```
 */
export async function serve(
  listener: (request: IncomingMessage, response: ServerResponse) => void,
  options: ServeOptions = {},
): Promise<RunningServer> {
  const logger = options.logger ?? silentLogger;
  const hostname = options.hostname ?? '127.0.0.1';
  if (typeof hostname !== 'string' || hostname === '') {
    throw optionCheck.invalid('serve(): hostname must be a non-empty string');
  }
  const port = optionCheck.integerInRange('port', options.port, 0, { min: 0, max: 65_535 });
  const timeoutMs = optionCheck.positiveInteger('shutdownTimeoutMs', options.shutdownTimeoutMs, 10_000);
  const headersTimeout = optionCheck.positiveInteger('headersTimeoutMs', options.headersTimeoutMs, 10_000);
  const requestTimeout = optionCheck.positiveInteger('requestTimeoutMs', options.requestTimeoutMs, 30_000);
  const checkingInterval = optionCheck.positiveInteger(
    'connectionsCheckingIntervalMs',
    options.connectionsCheckingIntervalMs,
    1_000,
  );
  if (headersTimeout > requestTimeout) {
    throw optionCheck.invalid('serve(): headersTimeoutMs must not exceed requestTimeoutMs');
  }
  const loopback = isLoopbackHostname(hostname);
  const extra = options.allowedHosts;
  if (extra === undefined && !loopback) {
    throw optionCheck.invalid(
      `serve(): bound to ${hostname}, which is not a loopback address, without allowedHosts. ` +
        'Pass the host names clients use (allowedHosts: ["app.example.com"]) so DNS-rebinding requests are ' +
        'refused, or allowedHosts: "any" if a proxy in front checks the Host header.',
    );
  }
  // Validate the list before binding, so a typo fails at start-up.
  const extraHosts = extra === undefined || extra === 'any' ? [] : checkedAllowedHosts(extra);
  let allowed: readonly string[] = [];
  const server = createServer(
    { headersTimeout, requestTimeout, connectionsCheckingInterval: checkingInterval },
    extra === 'any'
      ? listener
      : guardHosts(listener, {
          allowedHosts: () => allowed,
          logger,
          ...(options.selfGuardedPaths ? { selfGuardedPaths: options.selfGuardedPaths } : {}),
        }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, hostname, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  allowed = loopback
    ? [...new Set([...loopbackHosts(bound), ...allowedHostsFor({ hostname, port: bound }), ...extraHosts])]
    : extraHosts;
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
  return {
    url: `http://${host}:${bound}`,
    server,
    allowedHosts: extra === 'any' ? 'any' : allowed,
    close,
  };
}
