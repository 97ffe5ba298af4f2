/**
 * How a column's value is encoded from its record field: as it is, a string array in the dialect's
 * encoding, JSON text, or a scope set joined by spaces (a key column, so it compares as text).
 */
export type WrittenColumnKind = 'value' | 'stringArray' | 'json' | 'joinedScopes';

/** One column a record writes: its name, and the record field it comes from (the name in camelCase). */
export interface WrittenColumn {
  readonly name: string;
  readonly field: string;
  readonly kind: WrittenColumnKind;
}

/**
 * One table as records are written to it: the single column list both dialects write (and PostgreSQL also
 * selects, since it never selects `*`). `tenantColumn` is a column whose value is the tenant the store
 * method is given rather than a record field.
 */
export interface TableShape {
  readonly table: string;
  readonly tenantColumn?: string;
  /** The primary key: an upsert replaces every other column of the row with this key. */
  readonly key: readonly string[];
  /** The columns a record fills, in statement order (the tenant column not included). */
  readonly columns: readonly WrittenColumn[];
}

/** What differs between the dialects when writing: placeholders and the string-array encoding. */
export interface SqlWriteDialect {
  /** The placeholder of the `position`-th value (1-based): `?` in SQLite, `$n` in PostgreSQL. */
  placeholder(position: number): string;
  /** Encodes a string array for its column: JSON text in SQLite, a copied array for TEXT[] in PostgreSQL. */
  stringArray(value: readonly string[]): unknown;
}

const camelCase = (name: string): string =>
  name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

/**
 * A {@link TableShape} from its column names, each written from the field of the same name in camelCase;
 * `kinds` names the columns that are not written as they are.
 *
 * @example
 * ```ts
 * const leases = tableShape('keyhold_vault_refresh_leases', ['lease_key'], ['lease_key', 'token', 'expires_at']);
 * ```
 */
export function tableShape(
  table: string,
  key: readonly string[],
  columns: readonly string[],
  options: {
    readonly tenantColumn?: string;
    readonly kinds?: Readonly<Record<string, WrittenColumnKind>>;
  } = {},
): TableShape {
  return {
    table,
    key,
    ...(options.tenantColumn === undefined ? {} : { tenantColumn: options.tenantColumn }),
    columns: columns.map((name) => ({
      name,
      field: camelCase(name),
      kind: options.kinds?.[name] ?? 'value',
    })),
  };
}

/** The column names a shape writes, tenant column first: for `INSERT (…)` and PostgreSQL's `SELECT …`. */
export function columnNames(shape: TableShape): string[] {
  const names = shape.columns.map((column) => column.name);
  return shape.tenantColumn === undefined ? names : [shape.tenantColumn, ...names];
}

/**
 * `INSERT INTO table (…) VALUES (…)`, and with `upsert` an `ON CONFLICT (key) DO UPDATE` that replaces every
 * other column: the same text in both dialects but for the placeholders.
 *
 * @example
 * ```ts
 * db.prepare(insertStatement(OAUTH_TABLE_SHAPES.consent, sqliteWrites, { upsert: true }));
 * ```
 */
export function insertStatement(
  shape: TableShape,
  dialect: SqlWriteDialect,
  options: { readonly upsert?: boolean } = {},
): string {
  const names = columnNames(shape);
  const insert = `INSERT INTO ${shape.table} (${names.join(', ')}) VALUES (${names.map((_, i) => dialect.placeholder(i + 1)).join(', ')})`;
  if (options.upsert !== true) return insert;
  const updated = names.filter((name) => !shape.key.includes(name));
  return `${insert} ON CONFLICT (${shape.key.join(', ')}) DO UPDATE SET ${updated.map((name) => `${name} = excluded.${name}`).join(', ')}`;
}

function encode(column: WrittenColumn, value: unknown, dialect: SqlWriteDialect): unknown {
  if (value === undefined || value === null) return null;
  switch (column.kind) {
    case 'stringArray':
      return dialect.stringArray(value as readonly string[]);
    case 'json':
      return JSON.stringify(value);
    case 'joinedScopes':
      return (value as readonly string[]).join(' ');
    default:
      return value;
  }
}

/**
 * The values of one record in the order of {@link insertStatement}'s placeholders (the tenant first when
 * the table has a tenant column); an absent optional field is NULL.
 *
 * @example
 * ```ts
 * insertCode.run(...rowValues(OAUTH_TABLE_SHAPES.authorizationCode, record, sqliteWrites, tenant));
 * ```
 */
export function rowValues(
  shape: TableShape,
  record: object,
  dialect: SqlWriteDialect,
  tenant?: string,
): unknown[] {
  const fields = record as Readonly<Record<string, unknown>>;
  const values = shape.columns.map((column) => encode(column, fields[column.field], dialect));
  return shape.tenantColumn === undefined ? values : [tenant, ...values];
}
