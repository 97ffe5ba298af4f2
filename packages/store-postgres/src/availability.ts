import { type Logger, StorageUnavailableError, silentLogger } from '@keyhold/core';
import type pg from 'pg';

// Node socket errors: the server refused, reset or dropped the connection, or the network timed out.
const SOCKET_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
]);

// SQLSTATEs that say "the server cannot answer now", not "your statement is wrong": admin/crash shutdown,
// cannot connect now, statement timeout (57014: our statement_timeout fired) and too many connections.
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '57014', '53300']);

// node-postgres reports a lost, unreachable or stalled connection with a plain Error and one of these messages.
const CONNECTION_MESSAGES = [
  'Connection terminated',
  'timeout expired',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
];

/**
 * Whether `error` means the database cannot answer (refused, reset, terminated, timed out, shutting down)
 * rather than that the statement was wrong: only these become {@link StorageUnavailableError}; a
 * constraint violation or a syntax error stays what it is.
 */
export function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (SOCKET_ERROR_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08')) return true;
  }
  if (CONNECTION_MESSAGES.some((message) => error.message.startsWith(message))) return true;
  // pg-pool wraps a connect timeout around the socket error; Node wraps parallel connect attempts in one.
  if (error.cause !== undefined && error.cause !== error && isConnectionFailure(error.cause)) return true;
  return error instanceof AggregateError && error.errors.some(isConnectionFailure);
}

/** A short, secret-free description of a driver error for a log line: its code, else its message. */
export function failureReason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? `${code}: ${error.message}` : error.message;
}

interface ConnectionState {
  readonly logger: Logger;
  up: boolean;
}

// Pools made by createPostgresPool, with the logger that hears their state changes. A pool the host made
// itself is still guarded (errors become StorageUnavailableError) but logs nothing.
const states = new WeakMap<pg.Pool, ConnectionState>();

/** Starts tracking `pool`'s connection state: one warning when it is lost, one info line when it is back. */
export function trackConnectionState(pool: pg.Pool, logger: Logger = silentLogger): void {
  const state: ConnectionState = { logger, up: true };
  states.set(pool, state);
  // node-postgres emits 'error' on the pool when an idle client's connection dies (a server restart,
  // pg_terminate_backend). Without a listener that is an unhandled 'error' event and the process exits.
  // The pool has already dropped the client; the next query opens a new connection.
  pool.on('error', (error) => connectionLost(pool, error));
}

/** Notes that `pool` failed to reach the database; logs once per outage. */
export function connectionLost(pool: pg.Pool, error: unknown): void {
  const state = states.get(pool);
  if (state === undefined || !state.up) return;
  state.up = false;
  state.logger.warn({ component: 'postgres', reason: failureReason(error) }, 'postgres connection lost');
}

function connectionWorks(pool: pg.Pool): void {
  const state = states.get(pool);
  if (state === undefined || state.up) return;
  state.up = true;
  state.logger.info({ component: 'postgres' }, 'postgres connection restored');
}

/**
 * The one place every statement of this package runs through: a connection-class failure becomes
 * `StorageUnavailableError('postgres')` (its cause the driver's error) and is noted for the state log; any
 * other error passes through unchanged.
 */
export async function guarded<T>(pool: pg.Pool, work: () => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await work();
  } catch (error) {
    if (error instanceof StorageUnavailableError) throw error;
    if (!isConnectionFailure(error)) throw error;
    connectionLost(pool, error);
    throw new StorageUnavailableError('postgres', { cause: error });
  }
  connectionWorks(pool);
  return result;
}

/** Options of {@link checkPostgresReadiness}. */
export interface PostgresReadinessOptions {
  /** The longest the check waits for a connection and `SELECT 1` together (default 1000 ms). */
  readonly timeoutMs?: number;
}

/** What a readiness check answers: ready, or not and why (a short reason for logs, never a secret). */
export type PostgresReadiness = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * Whether the database answers `SELECT 1` within `timeoutMs`, for a readiness probe. It never throws and
 * never waits longer than `timeoutMs`, whatever state the database or the network is in.
 *
 * @example
 * ```ts
 * const ready = await checkPostgresReadiness(pool, { timeoutMs: 1000 });
 * if (!ready.ok) logger.warn({ reason: ready.reason }, 'postgres not ready');
 * ```
 */
export async function checkPostgresReadiness(
  pool: pg.Pool,
  options: PostgresReadinessOptions = {},
): Promise<PostgresReadiness> {
  const timeoutMs = options.timeoutMs ?? 1000;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1) {
    return { ok: false, reason: 'timeoutMs must be a positive whole number' };
  }
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<PostgresReadiness>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, reason: `no answer within ${timeoutMs} ms` }), timeoutMs);
  });
  // query_timeout per query is read by node-postgres but missing from its QueryConfig type.
  const query = { text: 'SELECT 1', query_timeout: timeoutMs } as pg.QueryConfig;
  const probe = guarded(pool, () => pool.query(query)).then(
    (): PostgresReadiness => ({ ok: true }),
    (error: unknown): PostgresReadiness => ({
      ok: false,
      reason: failureReason(error instanceof StorageUnavailableError ? error.cause : error),
    }),
  );
  try {
    return await Promise.race([probe, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
