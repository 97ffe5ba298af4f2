import { resolve } from 'node:path';
import type { RateLimitRule } from '@keyhold/core';

/**
 * The host's rate limits, each `{ limit, windowSeconds }`; an absent rule is off. The keys are in the README.
 */
export interface HostRateLimits {
  /** `POST /tenant/<t>/register` per client IP. */
  readonly register?: RateLimitRule;
  /** `GET /tenant/<t>/authorize` per client IP. */
  readonly authorize?: RateLimitRule;
  /** `POST /tenant/<t>/token` per client_id and, separately, per client IP. */
  readonly token?: RateLimitRule;
  /** `POST /tenant/<t>/consent` (the decision) per user. */
  readonly consent?: RateLimitRule;
  /** Claim codes not known to be valid, per principal (token subject, else IP), at the MCP endpoint. */
  readonly claimFailures?: RateLimitRule;
  /** Outbound client metadata document (CIMD) fetches per document host. */
  readonly cimdFetches?: RateLimitRule;
}

/** The limits the host applies unless `KEYHOLD_RATE_LIMIT_<RULE>` says otherwise (README, "Rate limits"). */
export const DEFAULT_HOST_RATE_LIMITS: Required<HostRateLimits> = {
  register: { limit: 30, windowSeconds: 60 },
  authorize: { limit: 60, windowSeconds: 60 },
  token: { limit: 600, windowSeconds: 60 },
  consent: { limit: 30, windowSeconds: 60 },
  claimFailures: { limit: 10, windowSeconds: 60 },
  cimdFetches: { limit: 10, windowSeconds: 60 },
};

const RATE_LIMIT_VARIABLES: Readonly<Record<keyof HostRateLimits, string>> = {
  register: 'KEYHOLD_RATE_LIMIT_REGISTER',
  authorize: 'KEYHOLD_RATE_LIMIT_AUTHORIZE',
  token: 'KEYHOLD_RATE_LIMIT_TOKEN',
  consent: 'KEYHOLD_RATE_LIMIT_CONSENT',
  claimFailures: 'KEYHOLD_RATE_LIMIT_CLAIM',
  cimdFetches: 'KEYHOLD_RATE_LIMIT_CIMD',
};

/**
 * `KEYHOLD_RATE_LIMITS=off` turns every limit off (`on`, the default, keeps them). Each rule reads
 * `KEYHOLD_RATE_LIMIT_<RULE>`: `<limit>/<windowSeconds>`, `<limit>` (a 60-second window) or `off`.
 */
function readRateLimits(env: Readonly<Record<string, string | undefined>>): HostRateLimits | undefined {
  const all = (env['KEYHOLD_RATE_LIMITS'] ?? 'on').trim().toLowerCase();
  if (all === 'off') return undefined;
  if (all !== 'on') throw new Error(`KEYHOLD_RATE_LIMITS must be "on" or "off", got "${all}"`);
  const limits: Partial<Record<keyof HostRateLimits, RateLimitRule>> = {};
  for (const [rule, variable] of Object.entries(RATE_LIMIT_VARIABLES) as [keyof HostRateLimits, string][]) {
    const value = env[variable]?.trim();
    if (value === undefined || value === '') {
      limits[rule] = DEFAULT_HOST_RATE_LIMITS[rule];
      continue;
    }
    if (value.toLowerCase() === 'off') continue;
    const match = /^(\d+)(?:\/(\d+))?$/.exec(value);
    const limit = Number(match?.[1]);
    const windowSeconds = Number(match?.[2] ?? '60');
    if (
      !match ||
      !Number.isSafeInteger(limit) ||
      limit < 1 ||
      !Number.isSafeInteger(windowSeconds) ||
      windowSeconds < 1
    ) {
      throw new Error(`${variable} must be "<limit>/<windowSeconds>", "<limit>" or "off", got "${value}"`);
    }
    limits[rule] = { limit, windowSeconds };
  }
  return limits;
}

/** What the example host reads from its environment. */
export interface HostConfig {
  readonly port: number;
  readonly hostname: string;
  /** The public base URL when it differs from the bound address (behind a proxy). */
  readonly publicUrl?: string;
  /**
   * Extra Host values the server answers to (`KEYHOLD_ALLOWED_HOSTS`, comma-separated `host` or `host:port`),
   * for proxies that forward another name. The loopback names (when bound to loopback) and the host of
   * `KEYHOLD_PUBLIC_URL` are always allowed; every other Host gets 421 (DNS-rebinding defence).
   */
  readonly allowedHosts: readonly string[];
  /** Browser origins allowed to register clients (`KEYHOLD_ALLOWED_ORIGINS`, comma-separated origins). */
  readonly allowedOrigins: readonly string[];
  /**
   * Addresses of reverse proxies whose `X-Forwarded-For` is believed (`KEYHOLD_TRUSTED_PROXIES`, comma-separated
   * IPs), so rate limits count the client behind them, not the proxy. Empty: the socket address counts.
   */
  readonly trustedProxies: readonly string[];
  /**
   * `KEYHOLD_ALLOW_SINGLE_USER_ON_NETWORK=1`: start single-user mode on a non-loopback address anyway, where
   * anyone who reaches it acts as the tenant owner. Off by default: the host refuses to start.
   */
  readonly allowSingleUserOnNetwork: boolean;
  readonly dataDir: string;
  /** The tenant MCP clients use. */
  readonly tenant: string;
  /** A second tenant of the same authorization server, playing the third-party provider offline. */
  readonly providerTenant: string;
  /**
   * `KEYHOLD_CONFIDENTIAL_TENANT=<slug>`: one more tenant like `demo` that accepts confidential clients only
   * (`client_secret_basic` and `private_key_jwt`, no `none`), for trying confidential-client authentication
   * against a server that leaves no public fallback. Absent: no such tenant.
   */
  readonly confidentialTenant?: string;
  readonly singleUser: boolean;
  /** The tenant owner: the subject in single-user mode. */
  readonly ownerUserId: string;
  readonly webhookSecret?: string;
  readonly logLevel: string;
  /** Hosts whose client metadata documents are fetched (CIMD allowlist). */
  readonly cimdDomains: readonly string[];
  /**
   * Development only: metadata documents under an https prefix are fetched from a local http server
   * instead (`https://client.example=http://127.0.0.1:4567`), so CIMD can be tried without a public site.
   * Every other CIMD rule (allowlist, validation, cache) still applies.
   */
  readonly cimdDevRewrite?: { readonly from: string; readonly to: string };
  /** PostgreSQL for several instances (`DATABASE_URL`); without it, SQLite in the data directory. */
  readonly databaseUrl?: string;
  /** Redis for the cross-instance refresh lock, rate limiter and webhook replay cache (`REDIS_URL`). */
  readonly redisUrl?: string;
  /** Prefix of every Redis key (`KEYHOLD_REDIS_PREFIX`, default `keyhold:`), so deployments can share a Redis. */
  readonly redisKeyPrefix: string;
  /** Access-token lifetime; short values let tests see a refresh. */
  readonly accessTokenTtlSeconds: number;
  /**
   * How long the token endpoint serves a client from memory (`KEYHOLD_CLIENT_CACHE_TTL_SECONDS`, default 5;
   * 0 reads the database every time): `keyhold clients remove` on a running host takes effect within it.
   */
  readonly clientCacheTtlSeconds: number;
  /**
   * Seconds between the expiry sweeper's runs over the database (`KEYHOLD_SWEEP_INTERVAL_SECONDS`, default 60):
   * expired codes, tokens, consents and unused dynamic clients are deleted in the background, on SQLite and
   * PostgreSQL alike.
   */
  readonly sweepIntervalSeconds: number;
  /** Rate limits, on by default (`KEYHOLD_RATE_LIMITS=off`: `undefined`, nothing limited but the registry API). */
  readonly rateLimits?: HostRateLimits;
  /**
   * The bounds on every wait for storage, in milliseconds; an absent one takes the store package's default
   * (README, "Configuration"): `KEYHOLD_PG_CONNECT_TIMEOUT_MS`, `KEYHOLD_PG_STATEMENT_TIMEOUT_MS`,
   * `KEYHOLD_PG_QUERY_TIMEOUT_MS`, `KEYHOLD_REDIS_COMMAND_TIMEOUT_MS`, `KEYHOLD_SQLITE_BUSY_TIMEOUT_MS`.
   */
  readonly storageTimeouts: HostStorageTimeouts;
  /**
   * How long a request may go unanswered before the host answers 503 with `Retry-After`
   * (`KEYHOLD_REQUEST_TIMEOUT_MS`, default 15000). A response that has started (an MCP event stream) is
   * never cut.
   */
  readonly requestTimeoutMs: number;
  /**
   * OpenTelemetry metrics export, on when `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`
   * is set (and `OTEL_SDK_DISABLED` is not `true`): the `mcp_auth.*` counters are pushed over OTLP/HTTP every
   * `OTEL_METRIC_EXPORT_INTERVAL` milliseconds (default 60000). Absent: no OpenTelemetry SDK is loaded.
   */
  readonly otlpMetrics?: { readonly exportIntervalMs: number };
  /**
   * `KEYHOLD_MACHINE_CLIENTS=1`: the MCP endpoint accepts tokens a client obtained for itself
   * (client_credentials, from a client provisioned with `keyhold clients add`) and tokens a workload obtained
   * with its own JWT (workload trust policies in `KEYHOLD_TRUST_POLICIES`). Off by default: such tokens get
   * one 403 saying machine clients are not accepted, since the tools act for users.
   */
  readonly machineClients: boolean;
}

/** The storage wait bounds the host passes on (each absent one: the store package's default). */
export interface HostStorageTimeouts {
  readonly postgresConnectMs?: number;
  readonly postgresStatementMs?: number;
  readonly postgresQueryMs?: number;
  readonly redisCommandMs?: number;
  readonly sqliteBusyMs?: number;
}

const STORAGE_TIMEOUT_VARIABLES: Readonly<Record<keyof HostStorageTimeouts, string>> = {
  postgresConnectMs: 'KEYHOLD_PG_CONNECT_TIMEOUT_MS',
  postgresStatementMs: 'KEYHOLD_PG_STATEMENT_TIMEOUT_MS',
  postgresQueryMs: 'KEYHOLD_PG_QUERY_TIMEOUT_MS',
  redisCommandMs: 'KEYHOLD_REDIS_COMMAND_TIMEOUT_MS',
  sqliteBusyMs: 'KEYHOLD_SQLITE_BUSY_TIMEOUT_MS',
};

/** A positive whole number of milliseconds from `variable`, or `undefined` when it is unset or empty. */
function readMilliseconds(
  env: Readonly<Record<string, string | undefined>>,
  variable: string,
): number | undefined {
  const value = env[variable]?.trim();
  if (value === undefined || value === '') return undefined;
  const ms = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(ms) || ms < 1) {
    throw new Error(`${variable} must be a positive whole number of milliseconds, got "${value}"`);
  }
  return ms;
}

function readStorageTimeouts(env: Readonly<Record<string, string | undefined>>): HostStorageTimeouts {
  const timeouts: Partial<Record<keyof HostStorageTimeouts, number>> = {};
  for (const [name, variable] of Object.entries(STORAGE_TIMEOUT_VARIABLES) as [
    keyof HostStorageTimeouts,
    string,
  ][]) {
    const ms = readMilliseconds(env, variable);
    if (ms !== undefined) timeouts[name] = ms;
  }
  const { postgresStatementMs, postgresQueryMs } = timeouts;
  // A query timeout below the package's default statement timeout is refused by createPostgresPool at start.
  if (
    postgresQueryMs !== undefined &&
    postgresStatementMs !== undefined &&
    postgresQueryMs < postgresStatementMs
  ) {
    throw new Error('KEYHOLD_PG_QUERY_TIMEOUT_MS must be at least KEYHOLD_PG_STATEMENT_TIMEOUT_MS');
  }
  return timeouts;
}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

function readOtlpMetrics(
  env: Readonly<Record<string, string | undefined>>,
): HostConfig['otlpMetrics'] | undefined {
  const endpoint = env['OTEL_EXPORTER_OTLP_METRICS_ENDPOINT'] || env['OTEL_EXPORTER_OTLP_ENDPOINT'];
  if (!endpoint?.trim() || env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') return undefined;
  // The bundled exporter speaks OTLP/HTTP with JSON bodies; a collector expecting another protocol would
  // drop every export, so say so at start instead.
  const protocol = (env['OTEL_EXPORTER_OTLP_METRICS_PROTOCOL'] || env['OTEL_EXPORTER_OTLP_PROTOCOL'])?.trim();
  if (protocol && protocol !== 'http/json') {
    throw new Error(
      `OTEL_EXPORTER_OTLP_PROTOCOL must be "http/json" (the host's exporter), got "${protocol}"`,
    );
  }
  return { exportIntervalMs: readMilliseconds(env, 'OTEL_METRIC_EXPORT_INTERVAL') ?? 60_000 };
}

function readFlag(env: Readonly<Record<string, string | undefined>>, variable: string): boolean {
  const value = (env[variable] ?? '0').trim();
  if (value !== '0' && value !== '1') throw new Error(`${variable} must be "0" or "1", got "${value}"`);
  return value === '1';
}

/** Reads the host's configuration from environment variables, with the defaults the README promises. */
export function readConfig(env: Readonly<Record<string, string | undefined>>, cwd: string): HostConfig {
  const port = Number(env['PORT'] ?? '8787');
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`PORT must be a port number, got "${env['PORT']}"`);
  const accessTokenTtlSeconds = Number(env['KEYHOLD_ACCESS_TOKEN_TTL_SECONDS'] ?? '900');
  if (!Number.isInteger(accessTokenTtlSeconds) || accessTokenTtlSeconds <= 0) {
    throw new Error('KEYHOLD_ACCESS_TOKEN_TTL_SECONDS must be a positive whole number');
  }
  const clientCacheTtlSeconds = Number(env['KEYHOLD_CLIENT_CACHE_TTL_SECONDS'] ?? '5');
  if (!Number.isInteger(clientCacheTtlSeconds) || clientCacheTtlSeconds < 0) {
    throw new Error('KEYHOLD_CLIENT_CACHE_TTL_SECONDS must be a whole number of seconds, 0 or more');
  }
  const sweepIntervalSeconds = Number(env['KEYHOLD_SWEEP_INTERVAL_SECONDS'] ?? '60');
  if (!Number.isInteger(sweepIntervalSeconds) || sweepIntervalSeconds <= 0) {
    throw new Error('KEYHOLD_SWEEP_INTERVAL_SECONDS must be a positive whole number');
  }
  const webhookSecret = env['SVC_WEBHOOK_SECRET'];
  const rewrite = env['KEYHOLD_CIMD_DEV_REWRITE'];
  const [from, to] = rewrite ? rewrite.split('=', 2) : [];
  const publicUrl = env['KEYHOLD_PUBLIC_URL'];
  const rateLimits = readRateLimits(env);
  const storageTimeouts = readStorageTimeouts(env);
  const requestTimeoutMs = readMilliseconds(env, 'KEYHOLD_REQUEST_TIMEOUT_MS') ?? 15_000;
  const otlpMetrics = readOtlpMetrics(env);
  const confidentialTenant = env['KEYHOLD_CONFIDENTIAL_TENANT']?.trim();
  if (confidentialTenant !== undefined && confidentialTenant !== '') {
    if (
      !/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(confidentialTenant) ||
      ['demo', 'provider'].includes(confidentialTenant)
    ) {
      throw new Error(
        `KEYHOLD_CONFIDENTIAL_TENANT must be a tenant slug other than demo and provider, got "${confidentialTenant}"`,
      );
    }
  }
  return {
    port,
    hostname: env['HOST'] ?? '127.0.0.1',
    ...(publicUrl ? { publicUrl: publicUrl.replace(/\/+$/, '') } : {}),
    allowedHosts: list(env['KEYHOLD_ALLOWED_HOSTS']),
    allowedOrigins: list(env['KEYHOLD_ALLOWED_ORIGINS']),
    trustedProxies: list(env['KEYHOLD_TRUSTED_PROXIES']),
    allowSingleUserOnNetwork: env['KEYHOLD_ALLOW_SINGLE_USER_ON_NETWORK'] === '1',
    dataDir: resolve(cwd, env['KEYHOLD_DATA_DIR'] ?? '.keyhold'),
    tenant: 'demo',
    providerTenant: 'provider',
    ...(confidentialTenant ? { confidentialTenant } : {}),
    // The spec's bootstrap: SVC_SINGLE_USER=1 skips login (the README's first command sets it).
    singleUser: env['SVC_SINGLE_USER'] === '1',
    ownerUserId: env['KEYHOLD_OWNER_USER_ID'] ?? 'owner',
    ...(webhookSecret ? { webhookSecret } : {}),
    logLevel: env['LOG_LEVEL'] ?? 'info',
    cimdDomains: list(env['KEYHOLD_CIMD_DOMAINS']),
    ...(from && to ? { cimdDevRewrite: { from, to } } : {}),
    ...(env['DATABASE_URL'] ? { databaseUrl: env['DATABASE_URL'] } : {}),
    ...(env['REDIS_URL'] ? { redisUrl: env['REDIS_URL'] } : {}),
    redisKeyPrefix: env['KEYHOLD_REDIS_PREFIX'] ?? 'keyhold:',
    accessTokenTtlSeconds,
    clientCacheTtlSeconds,
    sweepIntervalSeconds,
    ...(rateLimits ? { rateLimits } : {}),
    storageTimeouts,
    requestTimeoutMs,
    ...(otlpMetrics ? { otlpMetrics } : {}),
    machineClients: readFlag(env, 'KEYHOLD_MACHINE_CLIENTS'),
  };
}
