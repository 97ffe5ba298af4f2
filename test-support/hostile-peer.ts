/**
 * A real HTTP peer on a loopback socket that answers the way an attacker's server does: an endless body, a
 * huge complete body, or a body trickled one byte at a time. The readers of remote answers (token endpoints,
 * identity providers, the registry) are tested against it: each must stop reading within its limits, which
 * the peer sees as its socket closing.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the peer answers one request. */
export type HostileAnswer =
  /** Status 200, `prefix` then filler bytes without end (chunked, no length). */
  | { readonly kind: 'endless'; readonly prefix: string; readonly contentType?: string }
  /** Status 200, the whole `body` with its Content-Length. */
  | { readonly kind: 'huge'; readonly body: string; readonly contentType?: string }
  /** Status 200, `body` one byte every `intervalMs` (chunked, no length). */
  | {
      readonly kind: 'trickle';
      readonly body: string;
      readonly intervalMs: number;
      readonly contentType?: string;
    }
  /** An ordinary answer. */
  | {
      readonly kind: 'plain';
      readonly status?: number;
      readonly body: string;
      readonly contentType?: string;
    };

/** What the peer saw of one answer. */
export interface AnswerRecord {
  readonly path: string;
  /** Bytes of the body written so far. */
  bytesSent: number;
  /** Resolves when the response's socket closed (the reader stopped, or the answer ended and was closed). */
  readonly closed: Promise<void>;
  /** True once `closed` resolved. */
  isClosed: boolean;
  /** Whether the whole answer was written (false when the reader hung up first). */
  finished: boolean;
}

export interface HostilePeer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** Answers every request to `path` (`*`: any unrouted path) with `answer` (a function sees the request). */
  route(path: string, answer: HostileAnswer | ((request: IncomingMessage) => HostileAnswer)): void;
  /** Every answer given so far, in order. */
  readonly answers: AnswerRecord[];
  /** Resolves once the socket of the latest answer closed; rejects when it is still open after `withinMs`. */
  lastAnswerClosed(withinMs: number): Promise<AnswerRecord>;
  close(): Promise<void>;
}

const FILLER = Buffer.alloc(64 * 1024, 'A');

function answer(response: ServerResponse, spec: HostileAnswer, record: AnswerRecord): void {
  const contentType = spec.contentType ?? 'application/json';
  const stop = (): boolean => response.destroyed || response.writableEnded;
  switch (spec.kind) {
    case 'plain': {
      response.writeHead(spec.status ?? 200, { 'content-type': contentType });
      response.end(spec.body, () => {
        record.finished = true;
      });
      record.bytesSent = Buffer.byteLength(spec.body);
      return;
    }
    case 'huge': {
      const body = Buffer.from(spec.body);
      response.writeHead(200, { 'content-type': contentType, 'content-length': String(body.length) });
      response.end(body, () => {
        record.finished = true;
      });
      record.bytesSent = body.length;
      return;
    }
    case 'endless': {
      response.writeHead(200, { 'content-type': contentType });
      response.write(spec.prefix);
      const pump = (): void => {
        while (!stop()) {
          record.bytesSent += FILLER.length;
          if (!response.write(FILLER)) {
            response.once('drain', pump);
            return;
          }
        }
      };
      pump();
      return;
    }
    case 'trickle': {
      response.writeHead(200, { 'content-type': contentType });
      response.flushHeaders();
      const bytes = Buffer.from(spec.body);
      let index = 0;
      const timer = setInterval(() => {
        if (stop()) return clearInterval(timer);
        if (index >= bytes.length) {
          clearInterval(timer);
          response.end(() => {
            record.finished = true;
          });
          return;
        }
        response.write(bytes.subarray(index, index + 1));
        index += 1;
        record.bytesSent = index;
      }, spec.intervalMs);
      response.on('close', () => clearInterval(timer));
      return;
    }
  }
}

/**
 * Starts a hostile peer on 127.0.0.1 with an ephemeral port. Requests to an unrouted path answer 404.
 *
 * @example
 * ```ts
 * const peer = await startHostilePeer();
 * peer.route('/token', { kind: 'endless', prefix: '{"access_token":"' });
 * ```
 */
export async function startHostilePeer(): Promise<HostilePeer> {
  const routes = new Map<string, HostileAnswer | ((request: IncomingMessage) => HostileAnswer)>();
  const answers: AnswerRecord[] = [];
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://peer').pathname;
    // The request body is drained first, so the answer is not mistaken for a reply to a half-sent request.
    request.resume();
    request.on('end', () => {
      const route = routes.get(path) ?? routes.get('*');
      let resolveClosed: () => void = () => {};
      const record: AnswerRecord = {
        path,
        bytesSent: 0,
        closed: new Promise<void>((resolve) => {
          resolveClosed = resolve;
        }),
        isClosed: false,
        finished: false,
      };
      response.on('close', () => {
        record.isClosed = true;
        resolveClosed();
      });
      answers.push(record);
      if (route === undefined) {
        response.writeHead(404).end();
        return;
      }
      answer(response, typeof route === 'function' ? route(request) : route, record);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    route: (path, spec) => {
      routes.set(path, spec);
    },
    answers,
    lastAnswerClosed: async (withinMs) => {
      const last = answers.at(-1);
      if (last === undefined) throw new Error('the peer gave no answer');
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the socket stayed open for ${withinMs} ms`)), withinMs);
      });
      try {
        await Promise.race([last.closed, timeout]);
      } finally {
        clearTimeout(timer);
      }
      return last;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
