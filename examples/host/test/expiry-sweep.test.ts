import { join } from 'node:path';
import { openSqliteDatabase, type SqliteDatabase } from '@keyhold/store-sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { readConfig } from '../src/config.js';
import { type HostProcess, startHost } from './host-process.js';

let host: HostProcess | undefined;
let db: SqliteDatabase | undefined;
afterAll(async () => {
  db?.close();
  await host?.stop({ removeData: true });
});

const count = (table: string, key: string): number =>
  (db!.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE ${key}`).get() as { n: number }).n;

describe('the host on SQLite sweeps expired rows in the background', () => {
  it('deletes an expired row within a sweep interval and keeps the live ones', async () => {
    host = await startHost({ KEYHOLD_SWEEP_INTERVAL_SECONDS: '1' });
    // The host has migrated its database by the time it listens: write next to it, as another process would.
    db = openSqliteDatabase(join(host.dataDir, 'keyhold.db'));
    const insertLease = db.prepare(
      'INSERT INTO keyhold_vault_refresh_leases (lease_key, token, expires_at) VALUES (?, ?, ?)',
    );
    insertLease.run('expired', 'a', Date.now() - 1000);
    insertLease.run('live', 'b', Date.now() + 3_600_000);
    db.prepare(
      'INSERT INTO keyhold_oauth_revoked_access_tokens (tenant, jti, expires_at) VALUES (?, ?, ?)',
    ).run('demo', 'expired-jti', Date.now() - 1000);

    const deadline = Date.now() + 10_000;
    while (count('keyhold_vault_refresh_leases', "lease_key = 'expired'") > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(count('keyhold_vault_refresh_leases', "lease_key = 'expired'")).toBe(0);
    expect(count('keyhold_oauth_revoked_access_tokens', "jti = 'expired-jti'")).toBe(0);
    expect(count('keyhold_vault_refresh_leases', "lease_key = 'live'")).toBe(1);
  });
});

describe('KEYHOLD_SWEEP_INTERVAL_SECONDS sets the sweep interval', () => {
  it('defaults to 60 seconds and refuses anything but a positive whole number', () => {
    expect(readConfig({}, '/').sweepIntervalSeconds).toBe(60);
    expect(readConfig({ KEYHOLD_SWEEP_INTERVAL_SECONDS: '5' }, '/').sweepIntervalSeconds).toBe(5);
    for (const bad of ['0', '-1', '1.5', 'soon']) {
      expect(() => readConfig({ KEYHOLD_SWEEP_INTERVAL_SECONDS: bad }, '/')).toThrow(
        'KEYHOLD_SWEEP_INTERVAL_SECONDS must be a positive whole number',
      );
    }
  });
});
