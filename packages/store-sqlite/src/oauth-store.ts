import type { OAuthStorage } from '@keyhold/oauth-core';
import type {
  AuthorizationCodeRecord,
  RefreshTokenRotation,
  RefreshTokenRotationOutcome,
} from '@keyhold/oauth-core/storage';
import {
  createOAuthRowMappers,
  type FilterShape,
  filterShape,
  OAUTH_TABLE_SHAPES,
} from '@keyhold/store-sql-common';
import { guardedStore } from './availability.js';
import type { SqliteDatabase } from './database.js';
import { createSqliteEventStore } from './event-store.js';
import { migrateSqlite } from './migrations.js';
import { OAUTH_SQLITE_MIGRATIONS } from './oauth-schema.js';
import { createSqliteOnceStore } from './once-store.js';
import type { Row } from './row-mapping.js';
import { sqliteColumns, sqliteWriter } from './row-mapping.js';

const oauthRows = createOAuthRowMappers(sqliteColumns);

/**
 * One statement per grant filter shape, each naming only the columns it filters on so that it uses the
 * (tenant, user_id) or (tenant, client_id) index. Every shape takes the user and the client parameters in
 * that order (an unused one is NULL and only checked to be).
 */
function grantStatements<S>(make: (where: string) => S): Record<FilterShape, S> {
  return {
    user: make('user_id = ? AND ? IS NULL'),
    client: make('? IS NULL AND client_id = ?'),
    both: make('user_id = ? AND client_id = ?'),
    none: make('? IS NULL AND ? IS NULL'),
  };
}
const { client, authorizationCode, pendingAuthorization, refreshToken, consent, grant, clientBlock } =
  OAUTH_TABLE_SHAPES;

/**
 * Every oauth-core storage interface on one SQLite database, after running the `oauth` migrations. Lookups
 * are primary-key searches; `consume` of pending authorizations is one `DELETE … RETURNING`; `consume` of
 * codes reads and marks inside one immediate transaction, and `rotate` of a refresh token takes it (only
 * while active) and inserts its successor inside one (one commit per refresh), so of any number of callers (in this
 * process or another on the same file) exactly one sees the record unconsumed. Pair it with
 * `startSqliteExpirySweeper(db, { tables: OAUTH_SQLITE_SWEPT_TABLES })`.
 *
 * @example
 * ```ts
 * const db = openSqliteDatabase('.keyhold/keyhold.db');
 * const server = createAuthorizationServer({ storage: createSqliteOAuthStorage(db), baseUrl, tenants });
 * ```
 */
export function createSqliteOAuthStorage(db: SqliteDatabase): OAuthStorage {
  migrateSqlite(db, 'oauth', OAUTH_SQLITE_MIGRATIONS);
  const q = {
    getClient: db.prepare('SELECT * FROM keyhold_oauth_clients WHERE tenant = ? AND client_id = ?'),
    createClient: db.prepare(sqliteWriter.insert(client)),
    deleteClient: db.prepare('DELETE FROM keyhold_oauth_clients WHERE tenant = ? AND client_id = ?'),
    listClients: db.prepare(
      'SELECT * FROM keyhold_oauth_clients WHERE tenant = ? AND client_id > ? ORDER BY client_id LIMIT ?',
    ),
    touchClient: db.prepare(
      'UPDATE keyhold_oauth_clients SET expires_at = ? WHERE tenant = ? AND client_id = ?',
    ),
    countDynamicClients: db.prepare(
      'SELECT count(*) AS n FROM keyhold_oauth_clients WHERE tenant = ? AND expires_at > ?',
    ),
    saveCode: db.prepare(sqliteWriter.insert(authorizationCode, { onConflict: 'update' })),
    getCode: db.prepare('SELECT * FROM keyhold_oauth_codes WHERE tenant = ? AND code_hash = ?'),
    markCodeConsumed: db.prepare(
      'UPDATE keyhold_oauth_codes SET consumed_at = ? WHERE tenant = ? AND code_hash = ? AND consumed_at IS NULL',
    ),
    savePending: db.prepare(sqliteWriter.insert(pendingAuthorization, { onConflict: 'update' })),
    getPending: db.prepare('SELECT * FROM keyhold_oauth_pending WHERE tenant = ? AND id = ?'),
    consumePending: db.prepare('DELETE FROM keyhold_oauth_pending WHERE tenant = ? AND id = ? RETURNING *'),
    saveRefresh: db.prepare(sqliteWriter.insert(refreshToken, { onConflict: 'update' })),
    getRefresh: db.prepare('SELECT * FROM keyhold_oauth_refresh_tokens WHERE tenant = ? AND token_hash = ?'),
    // Takes the token only while it is active; RETURNING hands back the grant the successor inherits.
    markRotated: db.prepare(
      `UPDATE keyhold_oauth_refresh_tokens SET consumed_at = ?, sealed_successor = ?
       WHERE tenant = ? AND token_hash = ? AND consumed_at IS NULL AND revoked_at IS NULL
         AND expires_at > ? AND client_id = ?
       RETURNING *`,
    ),
    insertSuccessor: db.prepare(
      `INSERT INTO keyhold_oauth_refresh_tokens (tenant, token_hash, family_id, client_id, client_type,
        user_id, scope, resources, created_at, expires_at, jkt)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    restampRotation: db.prepare(
      `UPDATE keyhold_oauth_refresh_tokens SET consumed_at = ?
       WHERE tenant = ? AND token_hash = ? AND consumed_at IS NOT NULL AND consumed_at < ?`,
    ),
    revokeFamily: db.prepare(
      'UPDATE keyhold_oauth_refresh_tokens SET revoked_at = ? WHERE tenant = ? AND family_id = ? AND revoked_at IS NULL',
    ),
    saveConsent: db.prepare(sqliteWriter.insert(consent, { onConflict: 'update' })),
    listConsents: db.prepare(
      `SELECT * FROM keyhold_oauth_consents
       WHERE tenant = ? AND user_id = ? AND client_id = ? AND expires_at > ? ORDER BY scopes`,
    ),
    deleteConsents: db.prepare(
      'DELETE FROM keyhold_oauth_consents WHERE tenant = ? AND user_id = ? AND client_id = ?',
    ),
    revokeAccessToken: db.prepare(
      `INSERT INTO keyhold_oauth_revoked_access_tokens (tenant, jti, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (tenant, jti) DO UPDATE SET expires_at = max(expires_at, excluded.expires_at)`,
    ),
    isRevoked: db.prepare(
      'SELECT 1 AS revoked FROM keyhold_oauth_revoked_access_tokens WHERE tenant = ? AND jti = ?',
    ),
    createGrant: db.prepare(sqliteWriter.insert(grant, { onConflict: 'nothing' })),
    getGrant: db.prepare('SELECT * FROM keyhold_oauth_grants WHERE tenant = ? AND grant_id = ?'),
    // A statement per filter shape, so that each uses the (tenant, user_id) or (tenant, client_id) index.
    listGrants: grantStatements((where) =>
      db.prepare(
        `SELECT * FROM keyhold_oauth_grants
         WHERE tenant = ? AND ${where} AND (? = 1 OR revoked_at IS NULL) AND grant_id > ?
         ORDER BY grant_id LIMIT ?`,
      ),
    ),
    touchGrant: db.prepare(
      `UPDATE keyhold_oauth_grants SET last_used_at = ?, expires_at = COALESCE(?, expires_at)
       WHERE tenant = ? AND grant_id = ? AND last_used_at < ?`,
    ),
    revokeGrant: db.prepare(
      `UPDATE keyhold_oauth_grants SET revoked_at = ?, revoked_reason = ?, expires_at = COALESCE(?, expires_at)
       WHERE tenant = ? AND grant_id = ? AND revoked_at IS NULL`,
    ),
    revokeGrantsWhere: grantStatements((where) =>
      db.prepare(
        `UPDATE keyhold_oauth_grants SET revoked_at = ?, revoked_reason = ?, expires_at = COALESCE(?, expires_at)
         WHERE tenant = ? AND ${where} AND revoked_at IS NULL RETURNING *`,
      ),
    ),
    blockClient: db.prepare(sqliteWriter.insert(clientBlock, { onConflict: 'nothing' })),
    unblockClient: db.prepare('DELETE FROM keyhold_oauth_client_blocks WHERE tenant = ? AND client_id = ?'),
    getClientBlock: db.prepare(
      'SELECT * FROM keyhold_oauth_client_blocks WHERE tenant = ? AND client_id = ?',
    ),
  };

  // Mark (only an active token) and insert the successor in one immediate transaction: one commit per
  // refresh, and of any number of callers (in this process or another on the same file) at most one
  // finds the token active. A refusal reads the row as it stands, in the same transaction.
  const rotateRefresh = db.transaction(
    (tenant: string, r: RefreshTokenRotation): RefreshTokenRotationOutcome => {
      const taken = q.markRotated.get(
        r.now,
        r.sealedSuccessor ?? null,
        tenant,
        r.tokenHash,
        r.now,
        r.clientId,
      ) as Row | undefined;
      if (taken === undefined) {
        const row = q.getRefresh.get(tenant, r.tokenHash) as Row | undefined;
        return row === undefined
          ? { ok: false, reason: 'unknown' }
          : { ok: false, reason: 'refused', current: oauthRows.refreshToken(row) };
      }
      q.insertSuccessor.run(
        tenant,
        r.successorHash,
        taken['family_id'],
        taken['client_id'],
        taken['client_type'],
        taken['user_id'],
        taken['scope'],
        taken['resources'],
        r.now,
        r.successorExpiresAt,
        taken['jkt'] ?? null,
      );
      // The UPDATE matched an active token, so the record as it was before is this one unmarked.
      const { consumedAt: _, sealedSuccessor: __, ...previous } = oauthRows.refreshToken(taken);
      return { ok: true, previous };
    },
  );

  const consumeCode = db.transaction(
    (tenant: string, codeHash: string, now: number): AuthorizationCodeRecord | undefined => {
      const row = q.getCode.get(tenant, codeHash) as Row | undefined;
      if (row === undefined) return undefined;
      if (row['consumed_at'] === null) q.markCodeConsumed.run(now, tenant, codeHash);
      return oauthRows.authorizationCode(row);
    },
  );

  return guardedStore({
    clients: {
      async get(tenant, clientId) {
        const row = q.getClient.get(tenant, clientId) as Row | undefined;
        return row && oauthRows.client(row);
      },
      async create(tenant, c) {
        q.createClient.run(...sqliteWriter.values(client, c, tenant));
      },
      async delete(tenant, clientId) {
        q.deleteClient.run(tenant, clientId);
      },
      async list(tenant, options = {}) {
        const rows = q.listClients.all(tenant, options.afterClientId ?? '', options.limit ?? 100) as Row[];
        return rows.map(oauthRows.client);
      },
      async touch(tenant, clientId, expiresAt) {
        q.touchClient.run(expiresAt, tenant, clientId);
      },
      async countDynamic(tenant, now) {
        return Number((q.countDynamicClients.get(tenant, now) as { n: number | bigint }).n);
      },
    },
    authorizationCodes: {
      async save(tenant, r) {
        q.saveCode.run(...sqliteWriter.values(authorizationCode, r, tenant));
      },
      async consume(tenant, codeHash, now) {
        return consumeCode.immediate(tenant, codeHash, now);
      },
    },
    pendingAuthorizations: {
      async save(tenant, r) {
        q.savePending.run(...sqliteWriter.values(pendingAuthorization, r, tenant));
      },
      async get(tenant, id) {
        const row = q.getPending.get(tenant, id) as Row | undefined;
        return row && oauthRows.pendingAuthorization(row);
      },
      async consume(tenant, id) {
        const row = q.consumePending.get(tenant, id) as Row | undefined;
        return row && oauthRows.pendingAuthorization(row);
      },
    },
    refreshTokens: {
      async save(tenant, r) {
        q.saveRefresh.run(...sqliteWriter.values(refreshToken, r, tenant));
      },
      async get(tenant, tokenHash) {
        const row = q.getRefresh.get(tenant, tokenHash) as Row | undefined;
        return row && oauthRows.refreshToken(row);
      },
      async rotate(tenant, rotation) {
        return rotateRefresh.immediate(tenant, rotation);
      },
      async restampRotation(tenant, tokenHash, rotatedAt) {
        q.restampRotation.run(rotatedAt, tenant, tokenHash, rotatedAt);
      },
      async revokeFamily(tenant, familyId, now) {
        q.revokeFamily.run(now, tenant, familyId);
      },
    },
    consents: {
      async save(tenant, r) {
        q.saveConsent.run(...sqliteWriter.values(consent, r, tenant));
      },
      async list(tenant, userId, clientId, now) {
        return (q.listConsents.all(tenant, userId, clientId, now) as Row[]).map(oauthRows.consent);
      },
      async delete(tenant, userId, clientId) {
        q.deleteConsents.run(tenant, userId, clientId);
      },
    },
    grants: {
      async create(tenant, r) {
        q.createGrant.run(...sqliteWriter.values(grant, r, tenant));
      },
      async get(tenant, grantId) {
        const row = q.getGrant.get(tenant, grantId) as Row | undefined;
        return row && oauthRows.grant(row);
      },
      async list(tenant, options = {}) {
        const rows = q.listGrants[filterShape(options)].all(
          tenant,
          options.userId ?? null,
          options.clientId ?? null,
          options.includeRevoked === true ? 1 : 0,
          options.afterGrantId ?? '',
          options.limit ?? 100,
        ) as Row[];
        return rows.map(oauthRows.grant);
      },
      async touch(tenant, grantId, usedAt, expiresAt) {
        q.touchGrant.run(usedAt, expiresAt ?? null, tenant, grantId, usedAt);
      },
      async revoke(tenant, grantId, now, reason, expiresAt) {
        // The conditional UPDATE keeps the first revocation; the read after it answers whichever stands.
        q.revokeGrant.run(now, reason, expiresAt ?? null, tenant, grantId);
        const row = q.getGrant.get(tenant, grantId) as Row | undefined;
        return row && oauthRows.grant(row);
      },
      async revokeWhere(tenant, filter, now, reason, expiresAt) {
        if (filter.userId === undefined && filter.clientId === undefined) {
          throw new Error('revokeWhere needs a userId or a clientId');
        }
        const rows = q.revokeGrantsWhere[filterShape(filter)].all(
          now,
          reason,
          expiresAt ?? null,
          tenant,
          filter.userId ?? null,
          filter.clientId ?? null,
        ) as Row[];
        return rows.map(oauthRows.grant).sort((a, b) => (a.grantId < b.grantId ? -1 : 1));
      },
    },
    clientBlocks: {
      async block(tenant, r) {
        q.blockClient.run(...sqliteWriter.values(clientBlock, r, tenant));
      },
      async unblock(tenant, clientId) {
        return q.unblockClient.run(tenant, clientId).changes > 0;
      },
      async get(tenant, clientId) {
        const row = q.getClientBlock.get(tenant, clientId) as Row | undefined;
        return row && oauthRows.clientBlock(row);
      },
    },
    events: createSqliteEventStore(db),
    onceStore: createSqliteOnceStore(db),
    revokedAccessTokens: {
      async revoke(tenant, jti, expiresAt) {
        q.revokeAccessToken.run(tenant, jti, expiresAt);
      },
      async isRevoked(tenant, jti) {
        // A revoked token stays revoked even past its expiry (it is refused as expired anyway); the row
        // only goes when the sweep reclaims it.
        return q.isRevoked.get(tenant, jti) !== undefined;
      },
    },
  });
}
