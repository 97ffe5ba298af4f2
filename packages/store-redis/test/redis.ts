import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/** The Redis these tests use: this machine's (127.0.0.1:6379). */
export const REDIS_URL: string = process.env['KEYHOLD_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

/**
 * Whether Redis answers. Under `CI=true` a missing Redis fails the run (it throws); elsewhere the caller
 * skips its suites and this says plainly why.
 */
export async function requireRedis(): Promise<boolean> {
  const client = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  try {
    await client.connect();
    await client.ping();
    return true;
  } catch (error) {
    const reason = `Redis at ${REDIS_URL} is not reachable (${(error as Error).message})`;
    if (process.env['CI'] === 'true') throw new Error(`${reason}; CI requires it`);
    console.warn(`SKIPPED Redis store tests: ${reason}`);
    return false;
  } finally {
    client.disconnect();
  }
}

/** A key prefix no other test run uses. */
export function uniquePrefix(): string {
  return `keyhold-test:${randomBytes(6).toString('hex')}:`;
}
