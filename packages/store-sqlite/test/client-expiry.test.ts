import type { ClientRecord } from '@keyhold/oauth-core';
import type { AuthorizationCodeRecord } from '@keyhold/oauth-core/storage';
import { ONCE_SWEPT_TABLES } from '@keyhold/store-sql-common';
import { expectVersion4RefreshTokensWork } from '@keyhold/store-sql-common/testing';
import { describe, expect, it } from 'vitest';
import { migrateSqlite } from '../src/migrations.js';
import { OAUTH_SQLITE_MIGRATIONS, OAUTH_SQLITE_SWEPT_TABLES } from '../src/oauth-schema.js';
import { createSqliteOAuthStorage } from '../src/oauth-store.js';
import { startSqliteExpirySweeper, sweepExpiredSqlite } from '../src/sweeper.js';
import { temporaryDatabases } from './temp-database.js';

const databases = temporaryDatabases();
const NOW = 1_767_225_600_000;

function client(clientId: string, overrides: Partial<ClientRecord> = {}): ClientRecord {
  return {
    clientId,
    redirectUris: ['https://app.example/cb'],
    grantTypes: ['authorization_code', 'refresh_token'],
    responseTypes: ['code'],
    tokenEndpointAuthMethod: 'none',
    createdAt: NOW - 1000,
    ...overrides,
  };
}

function code(codeHash: string, overrides: Partial<AuthorizationCodeRecord> = {}): AuthorizationCodeRecord {
  return {
    codeHash,
    clientId: 'c',
    clientType: 'registered',
    userId: 'u',
    redirectUri: 'https://app.example/cb',
    codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    scope: 'mcp',
    resources: [],
    authTime: NOW,
    expiresAt: NOW + 60_000,
    ...overrides,
  };
}

describe('startSqliteExpirySweeper (SQLite): the same API as the PostgreSQL store', () => {
  it('deletes dynamic clients past their expiry, keeps live and provisioned (no expiry) clients', async () => {
    const db = databases.memory();
    const storage = createSqliteOAuthStorage(db);
    await storage.clients.create('t1', client('expired', { registration: 'dynamic', expiresAt: NOW - 1 }));
    await storage.clients.create('t1', client('live', { registration: 'dynamic', expiresAt: NOW + 1 }));
    await storage.clients.create('t1', client('provisioned', { registration: 'provisioned' }));
    await storage.authorizationCodes.save('t1', code('spent', { expiresAt: NOW - 1, consumedAt: NOW - 5 }));
    const sweeper = startSqliteExpirySweeper(db, {
      tables: OAUTH_SQLITE_SWEPT_TABLES,
      clock: { now: () => NOW },
    });
    expect(await sweeper.sweepNow()).toBe(2);
    await sweeper.stop();
    expect((await storage.clients.list('t1')).map((c) => c.clientId)).toEqual(['live', 'provisioned']);
    expect(await storage.authorizationCodes.consume('t1', 'spent', NOW)).toBeUndefined();
  });

  it('bounds one sweep: batchSize rows per statement, maxBatchesPerSweep statements per table', async () => {
    const db = databases.memory();
    const storage = createSqliteOAuthStorage(db);
    for (let i = 0; i < 25; i++) await storage.revokedAccessTokens.revoke('t1', `old-${i}`, NOW - 1);
    const sweeper = startSqliteExpirySweeper(db, {
      tables: ['keyhold_oauth_revoked_access_tokens'],
      batchSize: 10,
      maxBatchesPerSweep: 2,
      clock: { now: () => NOW },
    });
    expect(await sweeper.sweepNow()).toBe(20);
    expect(await sweeper.sweepNow()).toBe(5);
    await sweeper.stop();
  });

  it('refuses bad options at creation', () => {
    const db = databases.memory();
    expect(() => startSqliteExpirySweeper(db, { tables: [{ table: 'x; DROP TABLE y' }] })).toThrowError(
      expect.objectContaining({ code: 'ERR_INVALID_OPTIONS' }),
    );
    expect(() => startSqliteExpirySweeper(db, { tables: [], intervalSeconds: 0 })).toThrowError(
      expect.objectContaining({ code: 'ERR_INVALID_OPTIONS' }),
    );
  });

  it('sweepExpiredSqlite still accepts plain table names and the swept-table lists', async () => {
    const db = databases.memory();
    const storage = createSqliteOAuthStorage(db);
    await storage.clients.create('t1', client('expired', { registration: 'dynamic', expiresAt: NOW - 1 }));
    await storage.revokedAccessTokens.revoke('t1', 'old', NOW - 1);
    expect(sweepExpiredSqlite(db, ['keyhold_oauth_revoked_access_tokens'], NOW)).toBe(1);
    expect(sweepExpiredSqlite(db, OAUTH_SQLITE_SWEPT_TABLES, NOW)).toBe(1);
  });
});

describe('oauth migration 3 (forward-only): databases written by earlier versions keep working', () => {
  it('a client and a code stored at version 2 read back without the new fields, and a code is kept once consumed', async () => {
    const db = databases.memory();
    migrateSqlite(db, 'oauth', OAUTH_SQLITE_MIGRATIONS.slice(0, 2));
    db.prepare(
      `INSERT INTO keyhold_oauth_clients (tenant, client_id, redirect_uris, grant_types, response_types,
        token_endpoint_auth_method, created_at) VALUES ('t1', 'old', '["https://app.example/cb"]',
        '["authorization_code"]', '["code"]', 'none', ?)`,
    ).run(NOW);
    db.prepare(
      `INSERT INTO keyhold_oauth_codes (tenant, code_hash, client_id, client_type, user_id, redirect_uri,
        code_challenge, scope, resources, auth_time, expires_at)
       VALUES ('t1', 'h', 'old', 'registered', 'u', 'https://app.example/cb', 'x', 'mcp', '[]', ?, ?)`,
    ).run(NOW, NOW + 60_000);
    const storage = createSqliteOAuthStorage(db);
    expect(await storage.clients.get('t1', 'old')).toEqual({
      clientId: 'old',
      redirectUris: ['https://app.example/cb'],
      grantTypes: ['authorization_code'],
      responseTypes: ['code'],
      tokenEndpointAuthMethod: 'none',
      createdAt: NOW,
    });
    const first = await storage.authorizationCodes.consume('t1', 'h', NOW + 1);
    expect(first?.consumedAt).toBeUndefined();
    expect((await storage.authorizationCodes.consume('t1', 'h', NOW + 2))?.consumedAt).toBe(NOW + 1);
    const applied = db
      .prepare("SELECT version, name FROM keyhold_migrations WHERE component = 'oauth'")
      .all();
    expect(applied).toHaveLength(OAUTH_SQLITE_MIGRATIONS.length);
  });
});

describe('oauth migration 4 (private_key_jwt keys, application_type, assertion jtis)', () => {
  it('a client stored at version 3 reads back without the new fields; new clients keep them', async () => {
    const db = databases.memory();
    migrateSqlite(db, 'oauth', OAUTH_SQLITE_MIGRATIONS.slice(0, 3));
    db.prepare(
      `INSERT INTO keyhold_oauth_clients (tenant, client_id, redirect_uris, grant_types, response_types,
        token_endpoint_auth_method, created_at, registration, expires_at)
       VALUES ('t1', 'v3', '["https://app.example/cb"]', '["authorization_code"]', '["code"]', 'none', ?,
        'dynamic', ?)`,
    ).run(NOW, NOW + 1000);
    const storage = createSqliteOAuthStorage(db);
    expect(await storage.clients.get('t1', 'v3')).toEqual(
      client('v3', {
        grantTypes: ['authorization_code'],
        createdAt: NOW,
        registration: 'dynamic',
        expiresAt: NOW + 1000,
      }),
    );
    const signed = client('signed', {
      tokenEndpointAuthMethod: 'private_key_jwt',
      jwksUri: 'https://app.example/jwks.json',
      applicationType: 'web',
    });
    await storage.clients.create('t1', signed);
    expect(await storage.clients.get('t1', 'signed')).toEqual(signed);
    expect(await storage.onceStore?.consume('assertion:t1:signed:j1', NOW + 60_000, NOW)).toBe(true);
    expect(await storage.onceStore?.consume('assertion:t1:signed:j1', NOW + 60_000, NOW)).toBe(false);
  });

  it('the sweep reclaims expired spent keys', async () => {
    const db = databases.memory();
    const storage = createSqliteOAuthStorage(db);
    await storage.onceStore?.consume('assertion:t1:c:old', NOW - 1, NOW - 60_000);
    await storage.onceStore?.consume('assertion:t1:c:live', NOW + 60_000, NOW);
    expect(sweepExpiredSqlite(db, ONCE_SWEPT_TABLES, NOW)).toBe(1);
    const left = db.prepare('SELECT key FROM keyhold_once').all();
    expect(left).toEqual([{ key: 'assertion:t1:c:live' }]);
  });
});

describe('oauth migration 6: accepted client-assertion jtis move to the spend-once table', () => {
  it('a jti accepted before the upgrade is still spent after it, and the old table is gone', async () => {
    const db = databases.memory();
    migrateSqlite(db, 'oauth', OAUTH_SQLITE_MIGRATIONS.slice(0, 5));
    db.prepare(
      'INSERT INTO keyhold_oauth_client_assertion_jtis (tenant, client_id, jti, expires_at) VALUES (?, ?, ?, ?)',
    ).run('t1', 'signed', 'j1', NOW + 60_000);
    const storage = createSqliteOAuthStorage(db);
    expect(await storage.onceStore?.consume('assertion:t1:signed:j1', NOW + 60_000, NOW)).toBe(false);
    expect(await storage.onceStore?.consume('assertion:t1:signed:j2', NOW + 60_000, NOW)).toBe(true);
    const old = db
      .prepare("SELECT name FROM sqlite_schema WHERE name = 'keyhold_oauth_client_assertion_jtis'")
      .all();
    expect(old).toEqual([]);
  });
});

describe('oauth migration 5 (forward-only): refresh tokens written before the reuse window keep working', () => {
  it('a consumed and an active token stored at version 4 read back without a sealed successor; the active one rotates', async () => {
    const db = databases.memory();
    migrateSqlite(db, 'oauth', OAUTH_SQLITE_MIGRATIONS.slice(0, 4));
    const insert = db.prepare(
      `INSERT INTO keyhold_oauth_refresh_tokens (tenant, token_hash, family_id, client_id, client_type, user_id,
        scope, resources, created_at, expires_at, consumed_at) VALUES ('t1', ?, 'f', 'c', 'registered', 'u', 'mcp', '[]', ?, ?, ?)`,
    );
    insert.run('used', NOW, NOW + 60_000, NOW + 1);
    insert.run('live', NOW, NOW + 60_000, null);
    const storage = createSqliteOAuthStorage(db);
    await expectVersion4RefreshTokensWork(storage, NOW);
  });
});
