import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { createAddressCheck } from './address.js';
import { type CimdFetch, ForbiddenAddressError } from './fetch-contract.js';
import { type NodeNetworking, nodeNetworking } from './node-networking.js';

/**
 * Resolves a host name to every address it has. The default is `dns.promises.lookup(host, { all: true })`.
 *
 * @example
 * ```ts
 * const lookup: DnsLookup = async () => [{ address: '93.184.215.14', family: 4 }];
 * ```
 */
export type DnsLookup = (hostname: string) => Promise<readonly LookupAddress[]>;

/**
 * Options of {@link createSafeFetch}.
 */
export interface SafeFetchOptions {
  /** Name resolution; default: the system resolver. Tests inject one to simulate any answer. */
  readonly lookup?: DnsLookup;
  /** Exact addresses exempted from the refusal of private ranges (a private deployment, a test server). Default: none. */
  readonly allowedAddresses?: readonly string[];
  /** Extra trust anchors (PEM) besides the system's: for a test server with its own certificate. Default: none. */
  readonly ca?: string;
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A fetch that only reaches public addresses over https, for documents named by untrusted parties (SSRF-safe):
 * every address a host name resolves to is checked inside the socket's own name resolution, so the address
 * checked is the address connected to and DNS rebinding between check and connect is impossible; the connected
 * socket's peer address is checked once more. A name with any forbidden address is refused whole. Redirects are
 * returned, never followed; each request opens its own connection (no pooled socket from unchecked code). Body
 * size and time limits are the caller's (the resolver streams the body with a cap and aborts through `signal`).
 *
 * @example
 * ```ts
 * const safeFetch = createSafeFetch();
 * const response = await safeFetch('https://app.example/client.json', { signal: AbortSignal.timeout(10_000) });
 * ```
 */
export function createSafeFetch(options: SafeFetchOptions = {}): CimdFetch {
  // Node's modules load on the first fetch (see node-networking.ts), then this fetch is built once.
  let ready: Promise<CimdFetch> | undefined;
  return async (input, init) => {
    ready ??= nodeNetworking().then((networking) => connectingFetch(options, networking));
    return (await ready)(input, init);
  };
}

function connectingFetch(options: SafeFetchOptions, { dns, https, net, stream }: NodeNetworking): CimdFetch {
  const resolveAll: DnsLookup =
    options.lookup ?? ((hostname) => dns.lookup(hostname, { all: true, verbatim: true }));
  const exempt = new Set(options.allowedAddresses ?? []);
  const isForbiddenAddress = createAddressCheck(net);
  const permitted = (address: string): boolean => exempt.has(address) || !isForbiddenAddress(address);

  const checkedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
    const done = callback as LookupCallback;
    resolveAll(hostname).then(
      (addresses) => {
        const refused = addresses.find((entry) => !permitted(entry.address));
        if (refused) return done(new ForbiddenAddressError(hostname, refused.address), '', 0);
        const wanted = lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : 0;
        const usable = addresses.filter((entry) => wanted === 0 || entry.family === wanted);
        const first = usable[0];
        if (!first) {
          const error: NodeJS.ErrnoException = new Error(`no address found for ${hostname}`);
          error.code = 'ENOTFOUND';
          return done(error, '', 0);
        }
        if (lookupOptions.all)
          return done(
            null,
            usable.map((entry) => ({ ...entry })),
          );
        return done(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => done(error, '', 0),
    );
  };

  return (input, init) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(input);
      if (url.protocol !== 'https:')
        throw new TypeError(`refusing to fetch a non-https URL: ${url.protocol}`);
      const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
      // An IP literal never goes through `lookup`, so it is checked here (and again once connected).
      if (net.isIP(hostname) && !permitted(hostname)) throw new ForbiddenAddressError(hostname, hostname);
      if (init.signal?.aborted) throw init.signal.reason;

      const headers: Record<string, string> = {};
      new Headers(init.headers).forEach((value, name) => {
        headers[name] = value;
      });
      const method = (init.method ?? 'GET').toUpperCase();
      const outgoing = https.request(
        {
          protocol: 'https:',
          hostname,
          port: url.port === '' ? 443 : Number(url.port),
          path: `${url.pathname}${url.search}`,
          method,
          headers,
          lookup: checkedLookup,
          agent: false,
          ...(options.ca === undefined ? {} : { ca: options.ca }),
          ...(init.signal ? { signal: init.signal } : {}),
        },
        (incoming) => {
          const status = incoming.statusCode ?? 502;
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(incoming.headers)) {
            if (value === undefined) continue;
            for (const item of Array.isArray(value) ? value : [value]) responseHeaders.append(name, item);
          }
          const noBody = method === 'HEAD' || status === 204 || status === 304;
          if (noBody) incoming.resume();
          const body = noBody
            ? null
            : (stream.Readable.toWeb(incoming) as unknown as ReadableStream<Uint8Array>);
          resolve(
            new Response(body, {
              status,
              statusText: incoming.statusMessage ?? '',
              headers: responseHeaders,
            }),
          );
        },
      );
      outgoing.on('socket', (socket) => {
        socket.once('connect', () => {
          const peer = socket.remoteAddress;
          if (peer === undefined || !permitted(peer)) {
            outgoing.destroy(new ForbiddenAddressError(hostname, peer ?? 'an unknown address'));
          }
        });
      });
      outgoing.on('error', reject);
      outgoing.end(typeof init.body === 'string' ? init.body : undefined);
    });
}
