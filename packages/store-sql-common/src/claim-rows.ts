import type { ClaimRecord } from '@keyhold/claim-codes';
import type { ColumnReader, Row } from './column-reader.js';
import { withOptional } from './column-reader.js';

/**
 * Row → {@link ClaimRecord} for the `keyhold_claims` table over one dialect's {@link ColumnReader}.
 *
 * @example
 * ```ts
 * const toClaim = createClaimRowMapper(sqliteColumns);
 * const claims = (db.prepare('SELECT * FROM keyhold_claims').all() as Row[]).map(toClaim);
 * ```
 */
export function createClaimRowMapper(c: ColumnReader): (row: Row) => ClaimRecord {
  return (row) =>
    withOptional<ClaimRecord>(
      {
        code: c.text(row, 'code'),
        scopeDir: c.text(row, 'scope_dir'),
        createdAt: c.integer(row, 'created_at'),
        expiresAt: c.integer(row, 'expires_at'),
      },
      { label: c.optionalText(row, 'label') },
    );
}
