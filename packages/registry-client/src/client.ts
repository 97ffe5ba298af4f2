import type { Logger } from '@keyhold/core';
import { silentLogger } from '@keyhold/core';
import { raceAbort, readCapped } from '@keyhold/internal';
import manifest from '../package.json' with { type: 'json' };
import { loadBundledProviders } from './bundled-providers.js';
import type { McpProvider, McpProviderMap } from './mcp-provider.js';
import { parseProvider, parseProviderMap } from './mcp-provider.js';
import { functionOption, headerValueOption, optionCheck } from './option-check.js';
import { createProviderIndex, type ProviderIndex } from './search.js';

/** Options of {@link createRegistryClient}. */
export interface RegistryClientOptions {
  /**
   * Base address of the registry (`{registry_url}`; the API lives under `/api`, health at `/health`).
   * Without it the client answers from the local providers file and says so in the note.
   */
  registryUrl?: string;
  /** The `fetch` to use (default: the global one). */
  fetch?: typeof fetch;
  /** Time allowed until the response headers arrive, in ms (default 5000). */
  connectTimeoutMs?: number;
  /** Time allowed to read the whole response body once the headers arrived, in ms (default 5000). */
  readTimeoutMs?: number;
  /** The most bytes of one registry answer read; a longer one is a fallback (default 1 048 576). */
  maxResponseBytes?: number;
  /** Receives the reason for every fallback, only when `debug` is true. */
  logger?: Logger;
  /** Log fallbacks through `logger.debug` (default false). */
  debug?: boolean;
  /** The `User-Agent` header (default `keyhold-cli/<this package's version>`). */
  userAgent?: string;
  /** The local fallback providers (default: the bundled `providers.json`). Validated at creation. */
  localProviders?: unknown;
}

/**
 * Why the client answered from the local file instead of the registry.
 *
 * - `not_configured`: no `registryUrl` was given.
 * - `network`: the connection failed (refused, DNS, reset).
 * - `timeout`: the connect or read timeout passed.
 * - `invalid_json`: the body was not JSON.
 * - `unexpected_format`: the JSON did not have the documented shape.
 * - `http_error`: the registry answered with an unexpected status (5xx, 429, …).
 * - `too_large`: the answer was longer than `maxResponseBytes`.
 * - `not_found`: the registry does not know the provider, the local file does.
 */
export type FallbackReason =
  | 'not_configured'
  | 'network'
  | 'timeout'
  | 'invalid_json'
  | 'unexpected_format'
  | 'http_error'
  | 'too_large'
  | 'not_found';

/** Fields of every answer that came from the local file: the reason and a sentence for the user. */
export interface LocalSource {
  readonly source: 'local';
  readonly reason: FallbackReason;
  /** Tell the user: "the local registry is in use". */
  readonly note: string;
}

/**
 * The outcome of {@link RegistryClient.getProvider}: `ok` with the provider and where it came from (a
 * local answer carries its {@link LocalSource} `reason`, why the registry was not used), or
 * `reason: 'unknown'` when neither the registry nor the local file knows the id, and the caller tells the
 * user to add it by hand.
 */
export type ProviderLookup =
  | { readonly ok: true; readonly source: 'remote'; readonly provider: McpProvider }
  | ({ readonly ok: true; readonly provider: McpProvider } & LocalSource)
  | {
      readonly ok: false;
      readonly reason: 'unknown';
      readonly providerId: string;
      readonly note: string;
    };

/** The outcome of {@link RegistryClient.listProviders}. */
export type ProviderListing =
  | { readonly source: 'remote'; readonly providers: McpProviderMap }
  | ({ readonly providers: McpProviderMap } & LocalSource);

/** The outcome of {@link RegistryClient.searchProviders}. */
export type ProviderSearch = {
  readonly results: readonly McpProvider[];
  readonly query: string;
  readonly count: number;
} & ({ readonly source: 'remote' } | LocalSource);

/** The outcome of {@link RegistryClient.health}: no fallback here, it reports the registry itself. */
export type RegistryHealth =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: Exclude<FallbackReason, 'not_found'>; readonly message: string };

/**
 * A registry client: reads the registry, and falls back to the local providers file when it cannot.
 * Methods never throw for registry trouble; the result says where its data came from.
 */
export interface RegistryClient {
  /** One provider: remote, else local, else `{ ok: false, reason: 'unknown' }`. */
  getProvider(id: string): Promise<ProviderLookup>;
  /** Every provider: remote, or the local file. */
  listProviders(): Promise<ProviderListing>;
  /** Providers matching `query` by id, name or description, best first. */
  searchProviders(query: string): Promise<ProviderSearch>;
  /** Whether `GET {registry_url}/health` answers `{ status: 'ok' }`. */
  health(): Promise<RegistryHealth>;
}

type Fetched =
  | { readonly ok: true; readonly status: number; readonly json: unknown }
  | {
      readonly ok: false;
      readonly reason: Exclude<FallbackReason, 'not_found' | 'not_configured'>;
      readonly message: string;
    };

function baseUrlOption(value: string): URL {
  // A fragment never reaches the server; it is dropped, as it always was, rather than refused. HTTPS only
  // (the specification), as provider entries steer which servers a user's client connects to; plain http
  // stays open for a registry on this machine, as in development and the walk-through.
  const url = optionCheck.absoluteUrl(
    'registryUrl',
    typeof value === 'string' ? value.replace(/#.*$/s, '') : value,
    { requireHttps: true },
  );
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  url.search = '';
  return url;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Creates a {@link RegistryClient}. It sends `User-Agent:
 * keyhold-cli/<version>` and `Accept: application/json`, enforces the connect timeout (until the response
 * headers) and the read timeout (the body) separately, and keeps one in-memory cache for its own lifetime
 * (one CLI run); nothing is written to disk. Network errors, timeouts, invalid JSON and unexpected shapes
 * fall back to the local file, with a `note` for the user; the reason is logged only in debug mode.
 *
 * @example
 * ```ts
 * const client = createRegistryClient({ registryUrl: 'https://registry.example.com' });
 * const found = await client.getProvider('linear');
 * if (!found.ok) console.error(found.note);
 * else { if (found.source === 'local') console.error(found.note); console.log(found.provider.http?.url); }
 * ```
 */
export function createRegistryClient(options: RegistryClientOptions = {}): RegistryClient {
  const base = options.registryUrl === undefined ? undefined : baseUrlOption(options.registryUrl);
  const fetchImpl = functionOption('fetch', options.fetch, globalThis.fetch);
  const connectTimeoutMs = optionCheck.positiveInteger('connectTimeoutMs', options.connectTimeoutMs, 5000);
  const readTimeoutMs = optionCheck.positiveInteger('readTimeoutMs', options.readTimeoutMs, 5000);
  const maxResponseBytes = optionCheck.positiveInteger(
    'maxResponseBytes',
    options.maxResponseBytes,
    1_048_576,
  );
  const logger = options.logger ?? silentLogger;
  const debug = options.debug === true;
  const userAgent = headerValueOption('userAgent', options.userAgent, `keyhold-cli/${manifest.version}`);
  const local: McpProviderMap =
    options.localProviders === undefined ? loadBundledProviders() : parseProviderMap(options.localProviders);
  let localIndex: ProviderIndex | undefined;
  const headers = { accept: 'application/json', 'user-agent': userAgent };

  // The run's cache: the remote list once fetched, single lookups (null = remote 404), searches, and the
  // first outage, so one run waits for a dead registry at most once.
  let remoteList: McpProviderMap | undefined;
  const remoteProviders = new Map<string, McpProvider | null>();
  const remoteSearches = new Map<string, readonly McpProvider[]>();
  let outage: { reason: Exclude<FallbackReason, 'not_found'>; message: string } | undefined = base
    ? undefined
    : { reason: 'not_configured', message: 'no registry URL is configured' };

  function fallback(reason: FallbackReason, message: string, path?: string): LocalSource {
    if (debug)
      logger.debug({ reason, path, error: message }, 'registry fallback: using the local providers file');
    const note =
      reason === 'not_found'
        ? 'Not in the registry; found in the local registry.'
        : reason === 'not_configured'
          ? 'No registry URL configured; using the local registry.'
          : `The registry could not be used (${message}); using the local registry.`;
    return { source: 'local', reason, note };
  }

  async function getJson(path: string): Promise<Fetched> {
    const url = new URL(path, base);
    const controller = new AbortController();
    let timedOut: 'connect' | 'read' | undefined;
    const connectTimer = setTimeout(() => {
      timedOut = 'connect';
      controller.abort();
    }, connectTimeoutMs);
    let response: Response;
    try {
      // Raced as well: the limit holds even against a fetch that ignores its signal.
      response = await raceAbort(fetchImpl(url, { headers, signal: controller.signal }), controller.signal);
    } catch (error) {
      if (timedOut)
        return { ok: false, reason: 'timeout', message: `no response within ${connectTimeoutMs} ms` };
      return { ok: false, reason: 'network', message: `cannot reach ${url.host}: ${describe(error)}` };
    } finally {
      clearTimeout(connectTimer);
    }
    const readTimer = setTimeout(() => {
      timedOut = 'read';
      controller.abort();
    }, readTimeoutMs);
    let text: string;
    try {
      const body = await readCapped(response, maxResponseBytes, controller.signal);
      if (!body.ok) {
        return {
          ok: false,
          reason: 'too_large',
          message: `the registry answered more than ${maxResponseBytes} bytes`,
        };
      }
      text = new TextDecoder().decode(body.bytes);
    } catch (error) {
      if (timedOut)
        return { ok: false, reason: 'timeout', message: `body not read within ${readTimeoutMs} ms` };
      return { ok: false, reason: 'network', message: `reading the answer failed: ${describe(error)}` };
    } finally {
      clearTimeout(readTimer);
    }
    if (response.status !== 200 && response.status !== 404) {
      return { ok: false, reason: 'http_error', message: `the registry answered HTTP ${response.status}` };
    }
    try {
      return { ok: true, status: response.status, json: JSON.parse(text) as unknown };
    } catch {
      if (response.status === 404) return { ok: true, status: 404, json: undefined };
      return { ok: false, reason: 'invalid_json', message: 'the registry answered with invalid JSON' };
    }
  }

  function noteOutage(fetched: Extract<Fetched, { ok: false }>): void {
    // Only transport failures mark the registry down for the run; a bad body on one path may be local to it.
    if (fetched.reason === 'network' || fetched.reason === 'timeout') outage ??= fetched;
  }

  function readList(json: unknown): McpProviderMap | undefined {
    if (!isPlainObject(json)) return undefined;
    // Both shapes of a providers file: the map itself, or { providers: map }.
    const wrapped = isPlainObject(json['providers']) && !parseProvider(json['providers']).ok;
    const map = wrapped ? (json['providers'] as Record<string, unknown>) : json;
    const providers: Record<string, McpProvider> = Object.create(null);
    let dropped = 0;
    for (const [key, value] of Object.entries(map)) {
      const checked = parseProvider(value);
      if (checked.ok) providers[checked.provider.id] = checked.provider;
      else {
        dropped += 1;
        // One malformed entry must not hide the others; it is skipped and reported in debug mode.
        if (debug) logger.debug({ providerId: key, error: checked.message }, 'registry entry skipped');
      }
    }
    if (dropped > 0 && Object.keys(providers).length === 0) return undefined;
    return providers;
  }

  async function fetchList(): Promise<{ remote: McpProviderMap } | { local: LocalSource }> {
    if (remoteList) return { remote: remoteList };
    if (outage) return { local: fallback(outage.reason, outage.message) };
    const fetched = await getJson('api/providers');
    if (!fetched.ok) {
      noteOutage(fetched);
      return { local: fallback(fetched.reason, fetched.message, '/api/providers') };
    }
    const list = fetched.status === 200 ? readList(fetched.json) : undefined;
    if (!list) {
      return {
        local: fallback('unexpected_format', 'the provider list has an unexpected format', '/api/providers'),
      };
    }
    remoteList = list;
    return { remote: list };
  }

  function searchLocal(query: string, source: LocalSource): ProviderSearch {
    localIndex ??= createProviderIndex(local);
    const results = localIndex.search(query);
    return { results, query, count: results.length, ...source };
  }

  return {
    async getProvider(id) {
      const key = id.trim().toLowerCase();
      if (key === '') {
        return {
          ok: false,
          reason: 'unknown',
          providerId: id,
          note: 'An empty provider id names no provider.',
        };
      }
      const cached = remoteList ? (remoteList[key] ?? null) : remoteProviders.get(key);
      let fromRemote: McpProvider | null | LocalSource;
      if (cached !== undefined) fromRemote = cached;
      else if (outage) fromRemote = fallback(outage.reason, outage.message);
      else {
        const path = `api/providers/${encodeURIComponent(key)}`;
        const fetched = await getJson(path);
        if (!fetched.ok) {
          noteOutage(fetched);
          fromRemote = fallback(fetched.reason, fetched.message, `/${path}`);
        } else if (fetched.status === 404) {
          remoteProviders.set(key, null);
          fromRemote = null;
        } else {
          const checked = parseProvider(fetched.json);
          if (checked.ok) {
            remoteProviders.set(key, checked.provider);
            fromRemote = checked.provider;
          } else {
            fromRemote = fallback('unexpected_format', `invalid provider: ${checked.message}`, `/${path}`);
          }
        }
      }
      if (fromRemote !== null && !('source' in fromRemote)) {
        return { ok: true, source: 'remote', provider: fromRemote };
      }
      const localProvider = local[key];
      if (localProvider) {
        const source =
          fromRemote === null ? fallback('not_found', `"${key}" is not in the registry`) : fromRemote;
        return { ok: true, provider: localProvider, ...source };
      }
      return {
        ok: false,
        reason: 'unknown',
        providerId: id,
        note: `"${id}" is not in the registry or the local registry; add it to your MCP client configuration by hand.`,
      };
    },

    async listProviders() {
      const list = await fetchList();
      return 'local' in list
        ? { providers: local, ...list.local }
        : { source: 'remote', providers: list.remote };
    },

    async searchProviders(query) {
      const cached = remoteSearches.get(query);
      if (cached) return { source: 'remote', results: cached, query, count: cached.length };
      if (outage) return searchLocal(query, fallback(outage.reason, outage.message));
      if (remoteList) {
        const results = createProviderIndex(remoteList).search(query);
        remoteSearches.set(query, results);
        return { source: 'remote', results, query, count: results.length };
      }
      const path = `api/providers/search?q=${encodeURIComponent(query)}`;
      const fetched = await getJson(path);
      if (!fetched.ok) {
        noteOutage(fetched);
        return searchLocal(query, fallback(fetched.reason, fetched.message, '/api/providers/search'));
      }
      if (fetched.status === 404) {
        // The search endpoint is optional: search the remote list here instead.
        const list = await fetchList();
        if ('local' in list) return searchLocal(query, list.local);
        const results = createProviderIndex(list.remote).search(query);
        remoteSearches.set(query, results);
        return { source: 'remote', results, query, count: results.length };
      }
      const json = fetched.json;
      const rawResults = isPlainObject(json) && Array.isArray(json['results']) ? json['results'] : undefined;
      const results = rawResults?.map((entry) => parseProvider(entry));
      if (!results || results.some((entry) => !entry.ok)) {
        return searchLocal(
          query,
          fallback(
            'unexpected_format',
            'the search answer has an unexpected format',
            '/api/providers/search',
          ),
        );
      }
      const providers = results.flatMap((entry) => (entry.ok ? [entry.provider] : []));
      remoteSearches.set(query, providers);
      return { source: 'remote', results: providers, query, count: providers.length };
    },

    async health() {
      if (!base) return { ok: false, reason: 'not_configured', message: 'no registry URL is configured' };
      const fetched = await getJson('health');
      if (!fetched.ok) return { ok: false, reason: fetched.reason, message: fetched.message };
      if (fetched.status === 200 && isPlainObject(fetched.json) && fetched.json['status'] === 'ok') {
        return { ok: true };
      }
      return { ok: false, reason: 'unexpected_format', message: 'the health answer is not { status: "ok" }' };
    },
  };
}

function describe(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  if (cause instanceof Error) {
    const code = (cause as Error & { code?: unknown }).code;
    return typeof code === 'string' ? code : cause.message;
  }
  return String(cause);
}
