import { randomBytes } from 'node:crypto';
import { createRedisClient } from '@keyhold/store-redis';
import pg from 'pg';

// The fault suite's tools besides the TCP proxy (`test-support/fault-proxy.ts`, which the host's outage tests share): a
// database of the test's own, and a recorder of every answer the load got. The machine's PostgreSQL and Redis
// are never stopped: every outage happens in a proxy, or by ending the backends of the test's own database.

export const POSTGRES_URL: string =
  process.env['KEYHOLD_TEST_POSTGRES_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL: string = process.env['KEYHOLD_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

/**
 * Whether PostgreSQL and Redis answer. Under `CI=true` a missing one fails the run (throws); elsewhere the
 * suite is skipped with the reason printed.
 */
export async function servicesAvailable(suite: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3000 });
  const redis = createRedisClient(REDIS_URL, { connectTimeoutMs: 3000, commandTimeoutMs: 3000 });
  try {
    await client.connect();
    await redis.ping();
    return true;
  } catch (error) {
    const reason = (error as Error).message;
    if (process.env['CI'] === 'true') throw new Error(`${suite} needs PostgreSQL and Redis: ${reason}`);
    console.warn(`SKIPPED ${suite}: ${reason}`);
    return false;
  } finally {
    await client.end().catch(() => {});
    redis.disconnect();
  }
}

/** A database of the test's own on the machine's PostgreSQL, and a direct (unproxied) client to it. */
export interface FaultDatabase {
  readonly name: string;
  /** The database's URL through a proxy listening on `port` (the host processes' `DATABASE_URL`). */
  urlVia(port: number): string;
  /** The database's own URL (for the CLI and the checks, which must not go through the faults). */
  readonly directUrl: string;
  /** SQL on the database, over a connection the faults never touch. */
  query<Row extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<Row>>;
  /** `pg_terminate_backend` for every backend of the database but the test's own; answers how many. */
  terminateBackends(): Promise<number>;
  /** Drops the database (whatever is still connected to it). */
  drop(): Promise<void>;
}

const CHECKS_APPLICATION = 'keyhold-fault-checks';

export async function createFaultDatabase(adminUrl: string): Promise<FaultDatabase> {
  const name = `keyhold_fault_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl, application_name: 'keyhold-fault-admin' });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const direct = new URL(adminUrl);
  direct.pathname = `/${name}`;
  const directUrl = direct.toString();
  let checks: pg.Client | undefined;
  const checksClient = async () => {
    if (checks === undefined) {
      checks = new pg.Client({ connectionString: directUrl, application_name: CHECKS_APPLICATION });
      await checks.connect();
    }
    return checks;
  };
  return {
    name,
    directUrl,
    urlVia(port) {
      const url = new URL(directUrl);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      return url.toString();
    },
    query: async (text, values) => (await checksClient()).query(text, values),
    async terminateBackends() {
      const result = await admin.query<{ ended: string }>(
        `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) AS ended FROM pg_stat_activity
         WHERE datname = $1 AND pid <> pg_backend_pid() AND application_name <> $2`,
        [name, CHECKS_APPLICATION],
      );
      return Number(result.rows[0]?.ended ?? 0);
    },
    async drop() {
      await checks?.end().catch(() => {});
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/** Deletes every Redis key under `prefix` (the run's own), directly, not through any proxy. */
export async function deleteRedisKeys(prefix: string): Promise<void> {
  const redis = createRedisClient(REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** One answer the load got (or did not get: `status` 0). */
export interface Answer {
  readonly op: string;
  readonly instance: string;
  /** `performance.now()` when the request was sent. */
  readonly sentAt: number;
  readonly latencyMs: number;
  readonly status: number;
  readonly retryAfter: string | null;
  /** Set when the answer is wrong beyond its status (an outage read as "inactive", a tool error, no answer). */
  readonly problem?: string;
}

/** Where every answer of the load is kept, in the order they arrived. */
export class AnswerLog {
  readonly answers: Answer[] = [];

  /**
   * Sends one request and records its answer. A request that gets no answer within `hangMs` is recorded with
   * status 0 (a hang); a connection error also gives status 0 (nothing answered: a dead process).
   */
  async send<T>(
    op: string,
    instance: string,
    request: (signal: AbortSignal) => Promise<Response>,
    read: (response: Response, body: string) => { value?: T; problem?: string } = () => ({}),
    hangMs = 15_000,
  ): Promise<{ status: number; value?: T }> {
    const sentAt = performance.now();
    const signal = AbortSignal.timeout(hangMs);
    try {
      const response = await request(signal);
      const body = await response.text();
      let outcome: { value?: T; problem?: string };
      try {
        outcome = read(response, body);
      } catch (error) {
        outcome = { problem: `unreadable answer: ${(error as Error).message}` };
      }
      const { value, problem } = outcome;
      this.answers.push({
        op,
        instance,
        sentAt,
        latencyMs: performance.now() - sentAt,
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        ...(problem ? { problem } : {}),
      });
      return value === undefined ? { status: response.status } : { status: response.status, value };
    } catch (error) {
      const reason = signal.aborted ? `no answer within ${hangMs} ms` : (error as Error).message;
      this.answers.push({
        op,
        instance,
        sentAt,
        latencyMs: performance.now() - sentAt,
        status: 0,
        retryAfter: null,
        problem: reason,
      });
      return { status: 0 };
    }
  }

  between(from: number, to: number): Answer[] {
    return this.answers.filter((answer) => answer.sentAt >= from && answer.sentAt < to);
  }
}

/** Counts answers by status, as `{ "200": 12, "503": 4 }` with the keys in order. */
export function byStatus(answers: readonly Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const status of [...new Set(answers.map((answer) => answer.status))].sort((x, y) => x - y)) {
    counts[String(status)] = answers.filter((answer) => answer.status === status).length;
  }
  return counts;
}

/**
 * Answers grouped by request, instance, status and problem, with their count and slowest latency, as
 * `"12× refresh at A: 500, slowest 31 ms"`: what an assertion prints instead of every answer.
 */
export function tally(answers: readonly Answer[]): string[] {
  const groups = new Map<string, { count: number; slowest: number }>();
  for (const answer of answers) {
    const key = `${answer.op} at ${answer.instance}: ${answer.status}${answer.problem ? ` (${answer.problem})` : ''}`;
    const group = groups.get(key) ?? { count: 0, slowest: 0 };
    group.count += 1;
    group.slowest = Math.max(group.slowest, answer.latencyMs);
    groups.set(key, group);
  }
  return [...groups].map(
    ([key, { count, slowest }]) => `${count}× ${key}, slowest ${Math.round(slowest)} ms`,
  );
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
