export { createClaimRowMapper } from './claim-rows.js';
export { CLAIM_TABLE_SHAPE } from './claim-table.js';
export type { ColumnEncoding, ColumnReader, Row } from './column-reader.js';
export { createColumnReader, splitScopes } from './column-reader.js';
export { EVENT_COLUMNS, eventBound, eventOf, eventValues } from './event-rows.js';
export type {
  DeleteExpiredBatch,
  ExpirySweeper,
  ExpirySweeperOptions,
  ExpirySweepPlan,
  SweptTable,
} from './expiry-sweeper.js';
export { planExpirySweep, runExpirySweeper } from './expiry-sweeper.js';
export type { Migration, MigrationFailure, MigrationProblemCode } from './migration-plan.js';
export { checkMigrationOrder, pendingMigrations } from './migration-plan.js';
export type { OAuthRowMappers } from './oauth-rows.js';
export { createOAuthRowMappers } from './oauth-rows.js';
export type { FilterShape } from './oauth-tables.js';
export { filterShape, OAUTH_TABLE_SHAPES } from './oauth-tables.js';
export type {
  RowWriter,
  SqlWriteDialect,
  TableShape,
  WrittenColumn,
  WrittenColumnKind,
} from './row-writer.js';
export { columnNames, createRowWriter, tableShape } from './row-writer.js';
export {
  CLAIMS_SWEPT_TABLES,
  OAUTH_SWEPT_TABLES,
  ONCE_SWEPT_TABLES,
  TOKEN_VAULT_SWEPT_TABLES,
} from './swept-tables.js';
export type { TokenVaultRowMappers } from './token-vault-rows.js';
export { createTokenVaultRowMappers } from './token-vault-rows.js';
export { TOKEN_VAULT_TABLE_SHAPES } from './token-vault-tables.js';
