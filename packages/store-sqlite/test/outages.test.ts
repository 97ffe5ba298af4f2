import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StorageUnavailableError } from '@keyhold/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkSqliteReadiness } from '../src/availability.js';
import { createSqliteClaimStore } from '../src/claim-store.js';
import { openSqliteDatabase, type SqliteDatabase } from '../src/index.js';
import { createSqliteOAuthStorage } from '../src/oauth-store.js';

const BUSY_TIMEOUT_MS = 200;
// Generous: the machine is shared with other test runs; the point is "bounded", not "fast".
const SLACK_MS = 1500;

const claim = (code: string) => ({ code, scopeDir: '/tmp/x', createdAt: 1, expiresAt: Date.now() + 60_000 });
const client = (clientId: string) => ({
  clientId,
  redirectUris: ['https://app.example/cb'],
  grantTypes: ['authorization_code'],
  responseTypes: ['code'],
  tokenEndpointAuthMethod: 'none' as const,
  createdAt: 1,
});

describe('a SQLite store turns a busy or failing database into StorageUnavailableError("sqlite")', () => {
  let dir: string;
  let db: SqliteDatabase;
  let other: SqliteDatabase;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'keyhold-sqlite-outage-'));
    db = openSqliteDatabase(join(dir, 'keyhold.db'), { busyTimeoutMs: BUSY_TIMEOUT_MS });
    // Another process's connection, as a second instance or `keyhold` CLI on the same file would be.
    other = openSqliteDatabase(join(dir, 'keyhold.db'));
  });
  afterEach(() => {
    if (other.open) other.close();
    if (db.open) db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a write lock held past busyTimeoutMs fails the call within the bound, and the next call after it succeeds', async () => {
    const claims = createSqliteClaimStore(db);
    const oauth = createSqliteOAuthStorage(db);
    other.exec('BEGIN IMMEDIATE');
    const started = performance.now();
    const error = await claims.insert(claim('a')).catch((e: unknown) => e);
    const took = performance.now() - started;
    expect(error).toBeInstanceOf(StorageUnavailableError);
    expect(error).toMatchObject({
      component: 'sqlite',
      cause: expect.objectContaining({ code: 'SQLITE_BUSY' }),
    });
    expect(took).toBeGreaterThanOrEqual(BUSY_TIMEOUT_MS - 20);
    expect(took).toBeLessThan(BUSY_TIMEOUT_MS + SLACK_MS);
    // The stores nested in OAuthStorage go through the same choke point.
    await expect(oauth.clients.create('t', client('c1'))).rejects.toMatchObject({ component: 'sqlite' });
    other.exec('COMMIT');
    expect(await claims.insert(claim('a'))).toBe(true);
    await oauth.clients.create('t', client('c1'));
    expect(await oauth.clients.get('t', 'c1')).toMatchObject({ clientId: 'c1' });
  });

  it('leaves an error that is not an outage (a duplicate primary key) as it is', async () => {
    const oauth = createSqliteOAuthStorage(db);
    await oauth.clients.create('t', client('dup'));
    const error = await oauth.clients.create('t', client('dup')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(StorageUnavailableError);
    expect((error as { code?: string }).code).toMatch(/^SQLITE_CONSTRAINT/);
  });

  it('checkSqliteReadiness answers ok for an open database and not ok, without throwing, for a closed one', () => {
    expect(checkSqliteReadiness(db)).toEqual({ ok: true });
    db.close();
    expect(checkSqliteReadiness(db)).toMatchObject({ ok: false, reason: expect.any(String) });
  });
});
