import { guarded } from './availability.js';
import type { PostgresPool } from './database.js';
import type { Row } from './row-mapping.js';

/** Runs one statement and answers its rows and row count. */
export type Statement = (values: readonly unknown[]) => Promise<{ rows: Row[]; rowCount: number }>;

/** Makes one named statement of a component (see {@link preparedStatements}). */
export type StatementFactory = (name: string, text: string) => Statement;

/**
 * Named statements of one component (`oauth`, `vault`, `claims`): `pg` prepares each once per pooled
 * connection and afterwards sends only the values, which saves the parse and plan on every hot-path call.
 * The names (`keyhold_<component>_<name>`) must be unique per text, so each component has its own prefix.
 * Each runs through `guarded`, so an outage surfaces as `StorageUnavailableError('postgres')`.
 */
export function preparedStatements(pool: PostgresPool, component: string): StatementFactory {
  return (name, text) => async (values) => {
    const result = await guarded(pool, () =>
      pool.query<Row>({ name: `keyhold_${component}_${name}`, text, values: [...values] }),
    );
    return { rows: result.rows, rowCount: result.rowCount ?? 0 };
  };
}
