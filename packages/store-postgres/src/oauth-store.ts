import type { OAuthStorage } from '@keyhold/oauth-core';
import {
  columnNames,
  createOAuthRowMappers,
  type FilterShape,
  filterShape,
  OAUTH_TABLE_SHAPES,
} from '@keyhold/store-sql-common';
import type { PostgresPool } from './database.js';
import { createPostgresEventStore } from './event-store.js';
import { migratePostgres } from './migrations.js';
import { OAUTH_POSTGRES_MIGRATIONS } from './oauth-schema.js';
import { createPostgresOnceStore } from './once-store.js';
import type { Row } from './row-mapping.js';
import { postgresColumns, postgresWriter } from './row-mapping.js';
import { preparedStatements } from './statements.js';

// Columns are named, never `*`: a statement prepared on a pooled connection keeps working when another
// instance's migration adds a column (PostgreSQL refuses a cached plan whose result type changed).
const { client, authorizationCode, pendingAuthorization, refreshToken, consent, grant, clientBlock } =
  OAUTH_TABLE_SHAPES;
const CLIENT_COLUMNS = columnNames(client).join(', ');
const CODE_COLUMNS = columnNames(authorizationCode).join(', ');
const PENDING_COLUMNS = columnNames(pendingAuthorization).join(', ');
const REFRESH_TOKEN_COLUMNS = columnNames(refreshToken).join(', ');
const CONSENT_COLUMNS = columnNames(consent).join(', ');
const GRANT_COLUMNS = columnNames(grant).join(', ');
const CLIENT_BLOCK_COLUMNS = columnNames(clientBlock).join(', ');

const oauthRows = createOAuthRowMappers(postgresColumns);

/**
 * One statement per grant filter shape, each naming only the columns it filters on so that it uses the
 * (tenant, user_id) or (tenant, client_id) index; `where(n)` writes the condition on parameters `$n` (user)
 * and `$n+1` (client), which every shape takes (unused ones are ignored by the typed casts).
 */
function grantStatements<S>(
  make: (shape: FilterShape, where: (first: number) => string) => S,
): Record<FilterShape, S> {
  return {
    user: make('user', (n) => `user_id = $${n} AND $${n + 1}::text IS NULL`),
    client: make('client', (n) => `$${n}::text IS NULL AND client_id = $${n + 1}`),
    both: make('both', (n) => `user_id = $${n} AND client_id = $${n + 1}`),
    none: make('none', (n) => `$${n}::text IS NULL AND $${n + 1}::text IS NULL`),
  };
}

/**
 * Every oauth-core storage interface on PostgreSQL, after running the `oauth` migrations (under an
 * advisory lock, so instances may start together). Pending authorizations are taken with one
 * `DELETE … RETURNING`; codes are marked with one conditional `UPDATE … WHERE consumed_at IS NULL
 * RETURNING`, and a refresh token is rotated with one statement (a conditional `UPDATE` of the old token
 * and the `INSERT` of its successor in one CTE: one round trip, one commit), so of any number of callers
 * on any number of instances exactly one sees the record unconsumed.
 * Pair it with `startPostgresExpirySweeper(pool, { tables: OAUTH_POSTGRES_SWEPT_TABLES })`.
 *
 * @example
 * ```ts
 * const pool = createPostgresPool(process.env.DATABASE_URL!);
 * const server = createAuthorizationServer({ storage: await createPostgresOAuthStorage(pool), baseUrl, tenants });
 * ```
 */
export async function createPostgresOAuthStorage(pool: PostgresPool): Promise<OAuthStorage> {
  await migratePostgres(pool, 'oauth', OAUTH_POSTGRES_MIGRATIONS);
  const onceStore = await createPostgresOnceStore(pool);
  const statement = preparedStatements(pool, 'oauth');
  const q = {
    getClient: statement(
      'get_client',
      `SELECT ${CLIENT_COLUMNS} FROM keyhold_oauth_clients WHERE tenant = $1 AND client_id = $2`,
    ),
    createClient: statement('create_client', postgresWriter.insert(client)),
    deleteClient: statement(
      'delete_client',
      'DELETE FROM keyhold_oauth_clients WHERE tenant = $1 AND client_id = $2',
    ),
    listClients: statement(
      'list_clients',
      // Keyset pagination on the primary key: the comparison and the order use the same collation, so
      // pages never skip or repeat a client, and each page is one index range scan.
      `SELECT ${CLIENT_COLUMNS} FROM keyhold_oauth_clients
       WHERE tenant = $1 AND client_id > $2 ORDER BY client_id LIMIT $3`,
    ),
    touchClient: statement(
      'touch_client',
      'UPDATE keyhold_oauth_clients SET expires_at = $3 WHERE tenant = $1 AND client_id = $2',
    ),
    countDynamicClients: statement(
      'count_dynamic_clients',
      // count(*) is a bigint, which node-postgres reads as a string: the cast keeps it a number.
      'SELECT count(*)::int AS n FROM keyhold_oauth_clients WHERE tenant = $1 AND expires_at > $2',
    ),
    saveCode: statement('save_code', postgresWriter.insert(authorizationCode, { onConflict: 'update' })),
    markCodeConsumed: statement(
      'mark_code_consumed',
      `UPDATE keyhold_oauth_codes SET consumed_at = $3
       WHERE tenant = $1 AND code_hash = $2 AND consumed_at IS NULL RETURNING ${CODE_COLUMNS}`,
    ),
    getCode: statement(
      'get_code',
      `SELECT ${CODE_COLUMNS} FROM keyhold_oauth_codes WHERE tenant = $1 AND code_hash = $2`,
    ),
    savePending: statement(
      'save_pending',
      postgresWriter.insert(pendingAuthorization, { onConflict: 'update' }),
    ),
    getPending: statement(
      'get_pending',
      `SELECT ${PENDING_COLUMNS} FROM keyhold_oauth_pending WHERE tenant = $1 AND id = $2`,
    ),
    consumePending: statement(
      'consume_pending',
      `DELETE FROM keyhold_oauth_pending WHERE tenant = $1 AND id = $2 RETURNING ${PENDING_COLUMNS}`,
    ),
    saveRefresh: statement('save_refresh', postgresWriter.insert(refreshToken, { onConflict: 'update' })),
    getRefresh: statement(
      'get_refresh',
      `SELECT ${REFRESH_TOKEN_COLUMNS} FROM keyhold_oauth_refresh_tokens WHERE tenant = $1 AND token_hash = $2`,
    ),
    // One round trip and one commit per refresh: the conditional UPDATE takes the token (of concurrent
    // callers on any instance, only the first passes its WHERE; the others wait on the row lock and then
    // re-check it against the winner's committed row) and the INSERT of the successor reads its grant
    // from what the UPDATE returned, in the same statement, so the two commit together or not at all.
    rotateRefresh: statement(
      'rotate_refresh',
      `WITH consumed AS (
         UPDATE keyhold_oauth_refresh_tokens SET consumed_at = $3, sealed_successor = $7
         WHERE tenant = $1 AND token_hash = $2 AND consumed_at IS NULL AND revoked_at IS NULL
           AND expires_at > $3 AND client_id = $4
         RETURNING ${REFRESH_TOKEN_COLUMNS}
       ), successor AS (
         INSERT INTO keyhold_oauth_refresh_tokens (tenant, token_hash, family_id, client_id, client_type,
           user_id, scope, resources, created_at, expires_at, jkt)
         SELECT $1, $5, family_id, client_id, client_type, user_id, scope, resources, $3, $6, jkt FROM consumed
       )
       SELECT ${REFRESH_TOKEN_COLUMNS} FROM consumed`,
    ),
    restampRotation: statement(
      'restamp_rotation',
      `UPDATE keyhold_oauth_refresh_tokens SET consumed_at = $3
       WHERE tenant = $1 AND token_hash = $2 AND consumed_at IS NOT NULL AND consumed_at < $3`,
    ),
    revokeFamily: statement(
      'revoke_family',
      `UPDATE keyhold_oauth_refresh_tokens SET revoked_at = $3
       WHERE tenant = $1 AND family_id = $2 AND revoked_at IS NULL`,
    ),
    saveConsent: statement('save_consent', postgresWriter.insert(consent, { onConflict: 'update' })),
    listConsents: statement(
      'list_consents',
      `SELECT ${CONSENT_COLUMNS} FROM keyhold_oauth_consents
       WHERE tenant = $1 AND user_id = $2 AND client_id = $3 AND expires_at > $4 ORDER BY scopes`,
    ),
    deleteConsents: statement(
      'delete_consents',
      'DELETE FROM keyhold_oauth_consents WHERE tenant = $1 AND user_id = $2 AND client_id = $3',
    ),
    revokeAccessToken: statement(
      'revoke_access_token',
      `INSERT INTO keyhold_oauth_revoked_access_tokens (tenant, jti, expires_at) VALUES ($1, $2, $3)
       ON CONFLICT (tenant, jti) DO UPDATE
       SET expires_at = GREATEST(keyhold_oauth_revoked_access_tokens.expires_at, excluded.expires_at)`,
    ),
    isRevoked: statement(
      'is_revoked',
      'SELECT 1 FROM keyhold_oauth_revoked_access_tokens WHERE tenant = $1 AND jti = $2',
    ),
    createGrant: statement('create_grant', postgresWriter.insert(grant, { onConflict: 'nothing' })),
    getGrant: statement(
      'get_grant',
      `SELECT ${GRANT_COLUMNS} FROM keyhold_oauth_grants WHERE tenant = $1 AND grant_id = $2`,
    ),
    // A statement per filter shape (a generic plan of `$2 IS NULL OR user_id = $2` could not use the user
    // index); keyset pagination on the grant id, as for clients.
    listGrants: grantStatements((shape, where) =>
      statement(
        `list_grants_${shape}`,
        `SELECT ${GRANT_COLUMNS} FROM keyhold_oauth_grants
         WHERE tenant = $1 AND ${where(2)} AND ($4::boolean OR revoked_at IS NULL) AND grant_id > $5
         ORDER BY grant_id LIMIT $6`,
      ),
    ),
    touchGrant: statement(
      'touch_grant',
      `UPDATE keyhold_oauth_grants SET last_used_at = $3, expires_at = COALESCE($4::bigint, expires_at)
       WHERE tenant = $1 AND grant_id = $2 AND last_used_at < $3`,
    ),
    // Concurrent revocations wait on the row lock and re-check `revoked_at IS NULL` against the winner's
    // commit, so the first mark stays and the read after it shows that mark.
    revokeGrant: statement(
      'revoke_grant',
      `UPDATE keyhold_oauth_grants
       SET revoked_at = $3, revoked_reason = $4, expires_at = COALESCE($5::bigint, expires_at)
       WHERE tenant = $1 AND grant_id = $2 AND revoked_at IS NULL`,
    ),
    revokeGrantsWhere: grantStatements((shape, where) =>
      statement(
        `revoke_grants_where_${shape}`,
        `UPDATE keyhold_oauth_grants
         SET revoked_at = $4, revoked_reason = $5, expires_at = COALESCE($6::bigint, expires_at)
         WHERE tenant = $1 AND ${where(2)} AND revoked_at IS NULL
         RETURNING ${GRANT_COLUMNS}`,
      ),
    ),
    blockClient: statement('block_client', postgresWriter.insert(clientBlock, { onConflict: 'nothing' })),
    unblockClient: statement(
      'unblock_client',
      'DELETE FROM keyhold_oauth_client_blocks WHERE tenant = $1 AND client_id = $2',
    ),
    getClientBlock: statement(
      'get_client_block',
      `SELECT ${CLIENT_BLOCK_COLUMNS} FROM keyhold_oauth_client_blocks WHERE tenant = $1 AND client_id = $2`,
    ),
  };
  const first = (rows: Row[]): Row | undefined => rows[0];

  return {
    clients: {
      async get(tenant, clientId) {
        const row = first((await q.getClient([tenant, clientId])).rows);
        return row && oauthRows.client(row);
      },
      async create(tenant, c) {
        await q.createClient(postgresWriter.values(client, c, tenant));
      },
      async delete(tenant, clientId) {
        await q.deleteClient([tenant, clientId]);
      },
      async list(tenant, options = {}) {
        const { rows } = await q.listClients([tenant, options.afterClientId ?? '', options.limit ?? 100]);
        return rows.map(oauthRows.client);
      },
      async touch(tenant, clientId, expiresAt) {
        await q.touchClient([tenant, clientId, expiresAt]);
      },
      async countDynamic(tenant, now) {
        const { rows } = await q.countDynamicClients([tenant, now]);
        return Number(rows[0]?.['n'] ?? 0);
      },
    },
    authorizationCodes: {
      async save(tenant, r) {
        await q.saveCode(postgresWriter.values(authorizationCode, r, tenant));
      },
      async consume(tenant, codeHash, now) {
        const won = first((await q.markCodeConsumed([tenant, codeHash, now])).rows);
        if (won !== undefined) {
          // The WHERE clause saw consumed_at NULL, so the record as it was before is this one unmarked.
          const { consumedAt: _, ...before } = oauthRows.authorizationCode(won);
          return before;
        }
        // Lost, consumed earlier, or unknown: this read runs after the winner's commit.
        const row = first((await q.getCode([tenant, codeHash])).rows);
        return row && oauthRows.authorizationCode(row);
      },
    },
    pendingAuthorizations: {
      async save(tenant, r) {
        await q.savePending(postgresWriter.values(pendingAuthorization, r, tenant));
      },
      async get(tenant, id) {
        const row = first((await q.getPending([tenant, id])).rows);
        return row && oauthRows.pendingAuthorization(row);
      },
      async consume(tenant, id) {
        const row = first((await q.consumePending([tenant, id])).rows);
        return row && oauthRows.pendingAuthorization(row);
      },
    },
    refreshTokens: {
      async save(tenant, r) {
        await q.saveRefresh(postgresWriter.values(refreshToken, r, tenant));
      },
      async get(tenant, tokenHash) {
        const row = first((await q.getRefresh([tenant, tokenHash])).rows);
        return row && oauthRows.refreshToken(row);
      },
      async rotate(tenant, r) {
        const won = first(
          (
            await q.rotateRefresh([
              tenant,
              r.tokenHash,
              r.now,
              r.clientId,
              r.successorHash,
              r.successorExpiresAt,
              r.sealedSuccessor ?? null,
            ])
          ).rows,
        );
        if (won !== undefined) {
          // The WHERE clause saw an active token, so the record as it was before is this one unmarked.
          const { consumedAt: _, sealedSuccessor: __, ...previous } = oauthRows.refreshToken(won);
          return { ok: true, previous };
        }
        // Refused (or lost the race): this read runs after the winner's commit (the UPDATE waited on its
        // row lock), so it shows the winner's mark and sealed successor. The states that refuse a rotation
        // (consumed, revoked, expired, another client's) never revert, so the read cannot show an active token.
        const row = first((await q.getRefresh([tenant, r.tokenHash])).rows);
        return row === undefined
          ? { ok: false, reason: 'unknown' }
          : { ok: false, reason: 'refused', current: oauthRows.refreshToken(row) };
      },
      async restampRotation(tenant, tokenHash, rotatedAt) {
        await q.restampRotation([tenant, tokenHash, rotatedAt]);
      },
      async revokeFamily(tenant, familyId, now) {
        // Repeated until it marks nothing: a rotation committing while the UPDATE runs inserts a successor
        // that the UPDATE's snapshot cannot see; the next pass (a new snapshot) catches it. Rotation needs
        // an unrevoked token, so once a pass finds nothing, no new member can appear.
        while ((await q.revokeFamily([tenant, familyId, now])).rowCount > 0) {
          // another pass
        }
      },
    },
    consents: {
      async save(tenant, r) {
        await q.saveConsent(postgresWriter.values(consent, r, tenant));
      },
      async list(tenant, userId, clientId, now) {
        return (await q.listConsents([tenant, userId, clientId, now])).rows.map(oauthRows.consent);
      },
      async delete(tenant, userId, clientId) {
        await q.deleteConsents([tenant, userId, clientId]);
      },
    },
    grants: {
      async create(tenant, r) {
        await q.createGrant(postgresWriter.values(grant, r, tenant));
      },
      async get(tenant, grantId) {
        const row = first((await q.getGrant([tenant, grantId])).rows);
        return row && oauthRows.grant(row);
      },
      async list(tenant, options = {}) {
        const { rows } = await q.listGrants[filterShape(options)]([
          tenant,
          options.userId ?? null,
          options.clientId ?? null,
          options.includeRevoked === true,
          options.afterGrantId ?? '',
          options.limit ?? 100,
        ]);
        return rows.map(oauthRows.grant);
      },
      async touch(tenant, grantId, usedAt, expiresAt) {
        await q.touchGrant([tenant, grantId, usedAt, expiresAt ?? null]);
      },
      async revoke(tenant, grantId, now, reason, expiresAt) {
        await q.revokeGrant([tenant, grantId, now, reason, expiresAt ?? null]);
        const row = first((await q.getGrant([tenant, grantId])).rows);
        return row && oauthRows.grant(row);
      },
      async revokeWhere(tenant, filter, now, reason, expiresAt) {
        if (filter.userId === undefined && filter.clientId === undefined) {
          throw new Error('revokeWhere needs a userId or a clientId');
        }
        const { rows } = await q.revokeGrantsWhere[filterShape(filter)]([
          tenant,
          filter.userId ?? null,
          filter.clientId ?? null,
          now,
          reason,
          expiresAt ?? null,
        ]);
        return rows.map(oauthRows.grant).sort((a, b) => (a.grantId < b.grantId ? -1 : 1));
      },
    },
    clientBlocks: {
      async block(tenant, r) {
        await q.blockClient(postgresWriter.values(clientBlock, r, tenant));
      },
      async unblock(tenant, clientId) {
        return (await q.unblockClient([tenant, clientId])).rowCount > 0;
      },
      async get(tenant, clientId) {
        const row = first((await q.getClientBlock([tenant, clientId])).rows);
        return row && oauthRows.clientBlock(row);
      },
    },
    events: createPostgresEventStore(statement),
    onceStore,
    revokedAccessTokens: {
      async revoke(tenant, jti, expiresAt) {
        await q.revokeAccessToken([tenant, jti, expiresAt]);
      },
      async isRevoked(tenant, jti) {
        // A revoked token stays revoked even past its expiry (it is refused as expired anyway); the row
        // only goes when the sweeper reclaims it.
        return (await q.isRevoked([tenant, jti])).rowCount > 0;
      },
    },
  };
}
