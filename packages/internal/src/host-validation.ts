/**
 * Host and Origin validation: the defence against DNS rebinding (a page on `rebind.attacker.example` whose
 * name later resolves to 127.0.0.1 talks to a local server as if it were same-origin) and against
 * cross-site form posts. Pure functions over header strings, runtime-neutral.
 *
 * Allowed hosts are written `hostname` or `hostname:port` (`127.0.0.1:8787`, `[::1]:8787`,
 * `auth.example.com`). Matching is exact: host names are compared case-insensitively, a single trailing dot
 * (the absolute form of the same name) is ignored, IPv6 literals are compared in their canonical bracketed
 * form, and a Host header without a port stands for the default ports 80 and 443.
 */

import { CoreError } from '@keyhold/core';
import { optionValidators } from './option-validation.js';

// A list or URL that is no host is misuse by code: CoreError ERR_INVALID_OPTIONS, like every option check.
const check = optionValidators(CoreError);

/** One host in canonical form: lower-case host name or bracketed IPv6 literal, and the port when given. */
interface ParsedHost {
  readonly hostname: string;
  readonly port?: number;
}

// A Host header (RFC 9110 §7.2: uri-host [":" port]) restricted to what a browser can send: a registered
// name of letters, digits, "-", "_" and "." or an IPv4 literal, or a bracketed IPv6 literal. No user
// information, no spaces, no list of hosts, no percent-encoding.
const HOST_SYNTAX = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::(\d{1,5}))?$/;

const DEFAULT_PORTS: ReadonlySet<number> = new Set([80, 443]);

function parseHost(value: string): ParsedHost | undefined {
  const match = HOST_SYNTAX.exec(value.trim());
  if (!match) return undefined;
  let name = match[1]!;
  const portText = match[2];
  if (!name.startsWith('[')) {
    // The absolute form of a name ("localhost.") is the same name; anything else with empty labels is not.
    if (name.endsWith('.')) name = name.slice(0, -1);
    if (name === '' || name.split('.').some((label) => label === '')) return undefined;
  }
  let port: number | undefined;
  if (portText !== undefined) {
    port = Number(portText);
    if (!Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  }
  let hostname: string;
  try {
    // The URL parser gives the canonical spelling: lower case, IPv6 compressed, IPv4 in dotted decimal.
    hostname = new URL(`http://${name}/`).hostname;
  } catch {
    return undefined;
  }
  if (hostname === '') return undefined;
  return port === undefined ? { hostname } : { hostname, port };
}

function formatHost(host: ParsedHost): string {
  return host.port === undefined ? host.hostname : `${host.hostname}:${host.port}`;
}

function hostMatches(presented: ParsedHost, allowed: ParsedHost): boolean {
  if (presented.hostname !== allowed.hostname) return false;
  if (presented.port === allowed.port) return true;
  // A Host without a port names the scheme's default port, which is 80 or 443.
  if (presented.port === undefined) return allowed.port !== undefined && DEFAULT_PORTS.has(allowed.port);
  if (allowed.port === undefined) return DEFAULT_PORTS.has(presented.port);
  return false;
}

/**
 * Whether a host name is a loopback name or address: `localhost` (and its subdomains, RFC 6761),
 * `127.0.0.0/8` and `::1`. Accepts the bracketed and unbracketed IPv6 forms.
 *
 * @example
 * ```ts
 * isLoopbackHostname('127.0.0.1'); // true
 * isLoopbackHostname('0.0.0.0');   // false: every interface
 * ```
 */
export function isLoopbackHostname(hostname: string): boolean {
  const bare = hostname.toLowerCase().replace(/\.$/, '');
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  const inner = bare.startsWith('[') && bare.endsWith(']') ? bare.slice(1, -1) : bare;
  if (inner.includes(':')) {
    try {
      return new URL(`http://[${inner}]/`).hostname === '[::1]';
    } catch {
      return false;
    }
  }
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(inner);
}

/**
 * The Host values under which a server bound to loopback on `port` is reached: `127.0.0.1`, `localhost`
 * and `[::1]`, each with the port.
 *
 * @example
 * ```ts
 * loopbackHosts(8787); // ['127.0.0.1:8787', 'localhost:8787', '[::1]:8787']
 * ```
 */
export function loopbackHosts(port: number): string[] {
  check.integerInRange('loopbackHosts: port', port, port, { min: 1, max: 65_535 });
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
}

/**
 * The allowed Host value of a public URL (its host, with the scheme's default port made explicit), or of a
 * `{ hostname, port }` pair. Throws `CoreError` `ERR_INVALID_OPTIONS` for something that is not an http(s) URL or a host name.
 *
 * @example
 * ```ts
 * allowedHostsFor('https://auth.example.com/base'); // ['auth.example.com:443']
 * allowedHostsFor({ hostname: 'app.internal', port: 8080 }); // ['app.internal:8080']
 * ```
 */
export function allowedHostsFor(target: string | URL | { hostname: string; port?: number }): string[] {
  if (typeof target === 'string' || target instanceof URL) {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      throw check.invalid(`allowedHostsFor: not an absolute URL: ${String(target)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw check.invalid(`allowedHostsFor: not an http(s) URL: ${url.protocol}`);
    }
    const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    return [`${url.hostname}:${port}`];
  }
  const name =
    target.hostname.includes(':') && !target.hostname.startsWith('[')
      ? `[${target.hostname}]`
      : target.hostname;
  const parsed = parseHost(target.port === undefined ? name : `${name}:${target.port}`);
  if (!parsed) throw check.invalid(`allowedHostsFor: not a host name: ${target.hostname}`);
  return [formatHost(parsed)];
}

/**
 * Normalises a list of allowed hosts once (so that checking a request does no parsing of the list), and
 * throws `CoreError` `ERR_INVALID_OPTIONS` naming the first entry that is not a host, `host:port` or an
 * http(s) URL (whose host counts, with the scheme's default port made explicit).
 *
 * @example
 * ```ts
 * const allowed = normaliseAllowedHosts(['Auth.Example.com', '[0:0::1]:8787']); // ['auth.example.com', '[::1]:8787']
 * ```
 */
export function normaliseAllowedHosts(allowed: readonly string[]): string[] {
  return allowed.map((entry) => {
    const parsed = parseAllowedEntry(entry);
    if (!parsed) throw check.invalid(`not a host, host:port or http(s) URL: "${entry}"`);
    return formatHost(parsed);
  });
}

// An allowed-host entry may also be a public URL (`https://auth.example.com`): a host configures the URL it
// is reached at, not the Host header it implies; its host counts, with the scheme's default port explicit.
const URL_ENTRY = /^https?:\/\//i;

function parseAllowedEntry(entry: string): ParsedHost | undefined {
  if (!URL_ENTRY.test(entry)) return parseHost(entry);
  try {
    const url = new URL(entry);
    return {
      hostname: url.hostname,
      port: url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port),
    };
  } catch {
    return undefined;
  }
}

/**
 * Whether a request's `Host` header names one of the allowed hosts (see the module notes for the exact
 * rules). A missing, empty or malformed header (user information, several hosts, spaces, empty labels) is
 * never allowed.
 *
 * @example
 * ```ts
 * isAllowedHost('LOCALHOST:8787', loopbackHosts(8787));          // true
 * isAllowedHost('rebind.attacker.example:8787', loopbackHosts(8787)); // false
 * isAllowedHost('auth.example.com', ['auth.example.com:443']);   // true
 * ```
 */
export function isAllowedHost(hostHeader: string | undefined, allowed: readonly string[]): boolean {
  return createHostMatcher(allowed)(hostHeader);
}

/**
 * {@link isAllowedHost} with the allowed list parsed once: what a server checks on every request. Malformed
 * entries never match (use {@link normaliseAllowedHosts} to refuse them at start-up).
 *
 * @example
 * ```ts
 * const allowed = createHostMatcher(loopbackHosts(8787));
 * allowed('localhost:8787'); // true
 * ```
 */
export function createHostMatcher(allowed: readonly string[]): (hostHeader: string | undefined) => boolean {
  const entries = allowed.map(parseAllowedEntry).filter((entry): entry is ParsedHost => entry !== undefined);
  return (hostHeader) => {
    if (hostHeader === undefined || hostHeader === '') return false;
    const presented = parseHost(hostHeader);
    return presented !== undefined && entries.some((entry) => hostMatches(presented, entry));
  };
}

/**
 * The serialised origin (`scheme://host[:port]`, default port omitted, lower case) of a URL, or `undefined`
 * when it has none (not http(s), or not a URL).
 *
 * @example
 * ```ts
 * originOf('https://Auth.Example.com:443/tenant/demo'); // 'https://auth.example.com'
 * ```
 */
export function originOf(url: string | URL): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether an `Origin` header names one of the allowed origins. The opaque origin `null` and anything that
 * is not a bare http(s) origin are never allowed. An absent header is not an origin either: whether a
 * request without `Origin` (a non-browser client, or a browser's same-origin GET) may proceed is the
 * caller's decision.
 *
 * @example
 * ```ts
 * const origin = request.headers['origin'];
 * if (origin !== undefined && !isAllowedOrigin(origin, ['https://auth.example.com'])) return forbidden();
 * ```
 */
export function isAllowedOrigin(
  originHeader: string | undefined,
  allowedOrigins: readonly string[],
): boolean {
  if (originHeader === undefined) return false;
  const value = originHeader.trim();
  // An Origin header is exactly scheme://host[:port]: no path, query, user information or list.
  if (!/^https?:\/\/[A-Za-z0-9.\-_[\]:]+$/i.test(value)) return false;
  const presented = originOf(value);
  if (presented === undefined) return false;
  return allowedOrigins.some((allowed) => originOf(allowed) === presented);
}
