import { type TableShape, tableShape } from './row-writer.js';

/** The claim-codes `keyhold_claims` table as claims are written to it, in both dialects. */
export const CLAIM_TABLE_SHAPE: TableShape = tableShape(
  'keyhold_claims',
  ['code'],
  ['code', 'scope_dir', 'created_at', 'expires_at', 'label'],
);
