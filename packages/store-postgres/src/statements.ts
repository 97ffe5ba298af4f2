import type { PostgresPool } from './database.js';
import type { Row } from './row-mapping.js';

/** Runs one statement and answers its rows and row count. */
export type Statement = (values: readonly unknown[]) => Promise<{ rows: Row[]; rowCount: number }>;

/**
 * A named statement: `pg` prepares it once per pooled connection and afterwards sends only the values,
 * which saves the parse and plan on every hot-path call.
 */
export function statement(pool: PostgresPool, name: string, text: string): Statement {
  return async (values) => {
    const result = await pool.query<Row>({ name: `keyhold_${name}`, text, values: [...values] });
    return { rows: result.rows, rowCount: result.rowCount ?? 0 };
  };
}
