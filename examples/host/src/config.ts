import { resolve } from 'node:path';

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
   * `KEYHOLD_ALLOW_SINGLE_USER_ON_NETWORK=1`: start single-user mode on a non-loopback address anyway, where
   * anyone who reaches it acts as the tenant owner. Off by default: the host refuses to start.
   */
  readonly allowSingleUserOnNetwork: boolean;
  readonly dataDir: string;
  /** The tenant MCP clients use. */
  readonly tenant: string;
  /** A second tenant of the same authorization server, playing the third-party provider offline. */
  readonly providerTenant: string;
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
}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
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
  const webhookSecret = env['SVC_WEBHOOK_SECRET'];
  const rewrite = env['KEYHOLD_CIMD_DEV_REWRITE'];
  const [from, to] = rewrite ? rewrite.split('=', 2) : [];
  const publicUrl = env['KEYHOLD_PUBLIC_URL'];
  return {
    port,
    hostname: env['HOST'] ?? '127.0.0.1',
    ...(publicUrl ? { publicUrl: publicUrl.replace(/\/+$/, '') } : {}),
    allowedHosts: list(env['KEYHOLD_ALLOWED_HOSTS']),
    allowedOrigins: list(env['KEYHOLD_ALLOWED_ORIGINS']),
    allowSingleUserOnNetwork: env['KEYHOLD_ALLOW_SINGLE_USER_ON_NETWORK'] === '1',
    dataDir: resolve(cwd, env['KEYHOLD_DATA_DIR'] ?? '.keyhold'),
    tenant: 'demo',
    providerTenant: 'provider',
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
  };
}
