import { type TableShape, tableShape } from './row-writer.js';

/**
 * The claim-codes `keyhold_claims` table as claims are written to it, in both dialects.
 *
 * @example
 * ```ts
 * const insert = db.prepare(sqliteWriter.insert(CLAIM_TABLE_SHAPE, { onConflict: 'nothing' }));
 * const inserted = insert.run(...sqliteWriter.values(CLAIM_TABLE_SHAPE, claim)).changes === 1;
 * ```
 */
export const CLAIM_TABLE_SHAPE: TableShape = tableShape(
  'keyhold_claims',
  ['code'],
  ['code', 'scope_dir', 'created_at', 'expires_at', 'label'],
);
