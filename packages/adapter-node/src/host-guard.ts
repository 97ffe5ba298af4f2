import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '@keyhold/core';
import { silentLogger } from '@keyhold/core';
import { createHostMatcher, jsonResult, normaliseAllowedHosts } from '@keyhold/internal';
import { NodeAdapterError, optionCheck } from './errors.js';
import { hostHeaderCount, isWellFormedHost } from './host-header.js';
import { writeResult } from './write-result.js';

/**
 * A `node:http` request listener.
 */
export type NodeListener = (request: IncomingMessage, response: ServerResponse) => void;

/** Options of {@link guardHosts}. */
export interface GuardHostsOptions {
  /**
   * The Host values this server answers to (`host` or `host:port`, see `isAllowedHost` in `@keyhold/core`),
   * or a function returning them (read on every request, for lists known only after binding).
   */
  allowedHosts: readonly string[] | (() => readonly string[]);
  /** Receives one `warn` line per refused request (the Host value and path, nothing else). */
  logger?: Logger;
  /**
   * Paths (exact, without the query) whose handler checks Host itself against the same names: a request
   * there with one well-formed `Host` is passed through unchecked (`@keyhold/mcp`'s endpoint answers a
   * foreign Host with 403 and a JSON-RPC error, as MCP clients and the MCP transport guidance expect); a
   * repeated or malformed `Host` still gets 421 here. Default: none.
   */
  selfGuardedPaths?: readonly string[];
}

/** The status of a request whose Host is not served here: RFC 9110 §15.5.20 Misdirected Request. */
export const MISDIRECTED_STATUS = 421;

/**
 * `allowedHosts` normalised by `@keyhold/core`, with a bad entry reported as this package's misuse error
 * (`NodeAdapterError` `ERR_INVALID_OPTIONS`, the core error as its cause).
 */
export function checkedAllowedHosts(list: readonly string[]): string[] {
  if (!Array.isArray(list)) throw optionCheck.invalid('allowedHosts must be a list of host names');
  try {
    return normaliseAllowedHosts(list);
  } catch (error) {
    throw new NodeAdapterError(
      'ERR_INVALID_OPTIONS',
      `allowedHosts: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/**
 * Wraps a listener so that a request whose `Host` header is not one of the allowed hosts is answered
 * `421 Misdirected Request` with a small JSON body (`{"error":"misdirected_request", …}`) and
 * `Connection: close` before any handler runs. This is the defence against DNS rebinding: a page on
 * `rebind.attacker.example` whose name later resolves to 127.0.0.1 still sends `Host: rebind.attacker.example`.
 *
 * 421 rather than 403: the request is not forbidden to its sender, it was sent to a name this server does
 * not serve (RFC 9110 §15.5.20), and a browser or proxy may retry it on another connection.
 * `serve({ allowedHosts })` puts it in front of the listener; it is not exported from the package.
 */
export function guardHosts(listener: NodeListener, options: GuardHostsOptions): NodeListener {
  const logger = options.logger ?? silentLogger;
  const source = options.allowedHosts;
  // A fixed list is validated and parsed once, here; a function's list again only when it hands out a new
  // array (serve() swaps its list once, after binding), never per request.
  const fixed = typeof source === 'function' ? undefined : createHostMatcher(checkedAllowedHosts(source));
  const selfGuardedPaths = options.selfGuardedPaths ?? [];
  if (
    !Array.isArray(selfGuardedPaths) ||
    selfGuardedPaths.some((path) => typeof path !== 'string' || !path.startsWith('/'))
  ) {
    throw optionCheck.invalid('selfGuardedPaths must be a list of paths starting with "/"');
  }
  let lastList: readonly string[] | undefined;
  let lastMatcher: (host: string | undefined) => boolean = () => false;
  const matcherFor = (list: readonly string[]) => {
    if (list !== lastList) {
      lastList = list;
      lastMatcher = createHostMatcher(list);
    }
    return lastMatcher;
  };
  const selfGuarded = new Set(selfGuardedPaths);
  return (request, response) => {
    const host = request.headers.host;
    // RFC 9112 §3.2: several Host headers are a 400. Node keeps the first; a proxy may route on the last.
    const single = hostHeaderCount(request.rawHeaders) <= 1;
    if (selfGuarded.size > 0 && selfGuarded.has((request.url ?? '/').split('?', 1)[0] ?? '')) {
      // A self-guarded handler decides on a foreign host name, never on a Host that is no host name.
      if (single && isWellFormedHost(host)) {
        listener(request, response);
        return;
      }
    } else {
      const matches = fixed ?? matcherFor(typeof source === 'function' ? source() : source);
      if (single && matches(host)) {
        listener(request, response);
        return;
      }
    }
    logger.warn(
      { host: (host ?? '').slice(0, 255), path: (request.url ?? '/').split('?', 1)[0]?.slice(0, 255) },
      'request refused: Host not allowed',
    );
    request.resume();
    writeResult(
      response,
      jsonResult(
        MISDIRECTED_STATUS,
        {
          error: 'misdirected_request',
          error_description: 'this server does not answer to the host name in the Host header',
        },
        { 'cache-control': 'no-store', connection: 'close' },
      ),
    );
  };
}
