import type { ClientRecord } from '@keyhold/oauth-core';
import { expectVersion4RefreshTokensWork } from '@keyhold/store-sql-common/testing';
import { describe, expect, it } from 'vitest';
import { migratePostgres } from '../src/migrations.js';
import { OAUTH_POSTGRES_MIGRATIONS, OAUTH_POSTGRES_SWEPT_TABLES } from '../src/oauth-schema.js';
import { createPostgresOAuthStorage } from '../src/oauth-store.js';
import { startPostgresExpirySweeper } from '../src/sweeper.js';
import { requirePostgres, useIsolatedPool } from './postgres.js';

const available = await requirePostgres();
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

describe.skipIf(!available)('oauth migration 3 on PostgreSQL (forward-only)', () => {
  const db = useIsolatedPool();

  it('a client and a code stored at version 2 read back without the new fields', async () => {
    await migratePostgres(db.pool, 'oauth', OAUTH_POSTGRES_MIGRATIONS.slice(0, 2));
    await db.pool.query(
      `INSERT INTO keyhold_oauth_clients (tenant, client_id, redirect_uris, grant_types, response_types,
        token_endpoint_auth_method, created_at)
       VALUES ('t1', 'old', '{https://app.example/cb}', '{authorization_code}', '{code}', 'none', $1)`,
      [NOW],
    );
    await db.pool.query(
      `INSERT INTO keyhold_oauth_codes (tenant, code_hash, client_id, client_type, user_id, redirect_uri,
        code_challenge, scope, resources, auth_time, expires_at)
       VALUES ('t1', 'h', 'old', 'registered', 'u', 'https://app.example/cb', 'x', 'mcp', '{}', $1, $2)`,
      [NOW, NOW + 60_000],
    );
    const storage = await createPostgresOAuthStorage(db.pool);
    expect(await storage.clients.get('t1', 'old')).toEqual({
      clientId: 'old',
      redirectUris: ['https://app.example/cb'],
      grantTypes: ['authorization_code'],
      responseTypes: ['code'],
      tokenEndpointAuthMethod: 'none',
      createdAt: NOW,
    });
    expect((await storage.authorizationCodes.consume('t1', 'h', NOW + 1))?.consumedAt).toBeUndefined();
    expect((await storage.authorizationCodes.consume('t1', 'h', NOW + 2))?.consumedAt).toBe(NOW + 1);
  });

  it('startPostgresExpirySweeper deletes dynamic clients past their expiry, keeps live and provisioned ones', async () => {
    const storage = await createPostgresOAuthStorage(db.pool);
    await storage.clients.create('t2', client('expired', { registration: 'dynamic', expiresAt: NOW - 1 }));
    await storage.clients.create('t2', client('live', { registration: 'dynamic', expiresAt: NOW + 1 }));
    await storage.clients.create('t2', client('provisioned', { registration: 'provisioned' }));
    const sweeper = startPostgresExpirySweeper(db.pool, {
      tables: OAUTH_POSTGRES_SWEPT_TABLES,
      intervalSeconds: 3600,
      clock: { now: () => NOW },
    });
    expect(await sweeper.sweepNow()).toBeGreaterThanOrEqual(1);
    await sweeper.stop();
    expect((await storage.clients.list('t2')).map((c) => c.clientId)).toEqual(['live', 'provisioned']);
  });
});

describe.skipIf(!available)(
  'oauth migration 4 on PostgreSQL (private_key_jwt keys, application_type)',
  () => {
    const db = useIsolatedPool();

    it('a client stored at version 3 reads back without the new fields; new clients keep them', async () => {
      await migratePostgres(db.pool, 'oauth', OAUTH_POSTGRES_MIGRATIONS.slice(0, 3));
      await db.pool.query(
        `INSERT INTO keyhold_oauth_clients (tenant, client_id, redirect_uris, grant_types, response_types,
        token_endpoint_auth_method, created_at, registration, expires_at)
       VALUES ('t1', 'v3', '{https://app.example/cb}', '{authorization_code}', '{code}', 'none', $1, 'dynamic', $2)`,
        [NOW, NOW + 1000],
      );
      const storage = await createPostgresOAuthStorage(db.pool);
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
        jwks: { keys: [{ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' }] },
        applicationType: 'native',
      });
      await storage.clients.create('t1', signed);
      expect(await storage.clients.get('t1', 'signed')).toEqual(signed);
    });
  },
);

describe.skipIf(!available)('oauth migration 5 on PostgreSQL (forward-only)', () => {
  const db = useIsolatedPool();

  it('a consumed and an active refresh token stored at version 4 read back without a sealed successor; the active one rotates', async () => {
    await migratePostgres(db.pool, 'oauth', OAUTH_POSTGRES_MIGRATIONS.slice(0, 4));
    for (const [hash, consumedAt] of [
      ['used', NOW + 1],
      ['live', null],
    ] as const) {
      await db.pool.query(
        `INSERT INTO keyhold_oauth_refresh_tokens (tenant, token_hash, family_id, client_id, client_type, user_id,
          scope, resources, created_at, expires_at, consumed_at)
         VALUES ('t1', $1, 'f', 'c', 'registered', 'u', 'mcp', '{}', $2, $3, $4)`,
        [hash, NOW, NOW + 60_000, consumedAt],
      );
    }
    const storage = await createPostgresOAuthStorage(db.pool);
    await expectVersion4RefreshTokensWork(storage, NOW);
  });
});

describe.skipIf(!available)(
  'oauth migration 6 on PostgreSQL: accepted assertion jtis move to the spend-once table',
  () => {
    const db = useIsolatedPool();

    it('a jti accepted before the upgrade is still spent after it, and the old table is gone', async () => {
      await migratePostgres(db.pool, 'oauth', OAUTH_POSTGRES_MIGRATIONS.slice(0, 5));
      await db.pool.query(
        'INSERT INTO keyhold_oauth_client_assertion_jtis (tenant, client_id, jti, expires_at) VALUES ($1, $2, $3, $4)',
        ['t1', 'signed', 'j1', NOW + 60_000],
      );
      const storage = await createPostgresOAuthStorage(db.pool);
      expect(await storage.onceStore?.consume('assertion:t1:signed:j1', NOW + 60_000, NOW)).toBe(false);
      expect(await storage.onceStore?.consume('assertion:t1:signed:j2', NOW + 60_000, NOW)).toBe(true);
      const old = await db.pool.query("SELECT to_regclass('keyhold_oauth_client_assertion_jtis') AS t");
      expect(old.rows[0]?.t).toBeNull();
    });
  },
);
