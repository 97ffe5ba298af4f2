/**
 * How a column's value is encoded from its record field: as it is, a string array in the dialect's
 * encoding, JSON text, or a scope set joined by spaces (a key column, so it compares as text).
 */
export type WrittenColumnKind = 'value' | 'stringArray' | 'json' | 'joinedScopes' | 'flag';

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

/**
 * The column names a shape writes, tenant column first: for `INSERT (…)` and PostgreSQL's `SELECT …`.
 *
 * @example
 * ```ts
 * const select = `SELECT ${columnNames(OAUTH_TABLE_SHAPES.client).join(', ')} FROM keyhold_oauth_clients`;
 * ```
 */
export function columnNames(shape: TableShape): string[] {
  const names = shape.columns.map((column) => column.name);
  return shape.tenantColumn === undefined ? names : [shape.tenantColumn, ...names];
}

/**
 * `INSERT INTO table (…) VALUES (…)`; with `onConflict: 'update'` an upsert that replaces every column
 * outside the key, with `'nothing'` an insert that leaves an existing row alone. The same text in both
 * dialects but for the placeholders.
 *
 * @example
 * ```ts
 * db.prepare(insertStatement(OAUTH_TABLE_SHAPES.consent, sqliteWrites, { onConflict: 'update' }));
 * ```
 */
export function insertStatement(
  shape: TableShape,
  dialect: SqlWriteDialect,
  options: { readonly onConflict?: 'update' | 'nothing' } = {},
): string {
  const names = columnNames(shape);
  const placeholders = names.map((_, i) => dialect.placeholder(i + 1));
  const insert = `INSERT INTO ${shape.table} (${names.join(', ')}) VALUES (${placeholders.join(', ')})`;
  if (options.onConflict === undefined) return insert;
  const conflict = `${insert} ON CONFLICT (${shape.key.join(', ')})`;
  if (options.onConflict === 'nothing') return `${conflict} DO NOTHING`;
  const updated = names.filter((name) => !shape.key.includes(name));
  return `${conflict} DO UPDATE SET ${updated.map((name) => `${name} = excluded.${name}`).join(', ')}`;
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
    case 'flag':
      // 1 or 0 in both dialects: SQLite has no boolean, and one integer column reads the same everywhere.
      return value === true ? 1 : 0;
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

/**
 * The values of a record's key columns, in the shape's column order (the tenant first when it is part of
 * the key): for `WHERE key = …` statements.
 *
 * @example
 * ```ts
 * get.get(...keyValues(TOKEN_VAULT_TABLE_SHAPES.grant, grantKey, sqliteWrites));
 * ```
 */
export function keyValues(
  shape: TableShape,
  record: object,
  dialect: SqlWriteDialect,
  tenant?: string,
): unknown[] {
  const fields = record as Readonly<Record<string, unknown>>;
  const values = shape.columns
    .filter((column) => shape.key.includes(column.name))
    .map((column) => encode(column, fields[column.field], dialect));
  return shape.tenantColumn !== undefined && shape.key.includes(shape.tenantColumn)
    ? [tenant, ...values]
    : values;
}

/** {@link insertStatement}, {@link rowValues} and {@link keyValues} bound to one dialect. */
export interface RowWriter {
  /** The insert (or upsert) statement of a table. */
  insert(shape: TableShape, options?: { readonly onConflict?: 'update' | 'nothing' }): string;
  /** A record's values in the order of the statement's placeholders. */
  values(shape: TableShape, record: object, tenant?: string): unknown[];
  /** A record's key values, for `WHERE key = …` statements. */
  key(shape: TableShape, record: object, tenant?: string): unknown[];
}

/**
 * The writing half of a dialect, as {@link createColumnReader} is the reading half: each store makes one and
 * writes every table through it, so the column lists live once, in the table shapes.
 *
 * @example
 * ```ts
 * const sqliteWriter = createRowWriter({ placeholder: () => '?', stringArray: (value) => JSON.stringify(value) });
 * db.prepare(sqliteWriter.insert(OAUTH_TABLE_SHAPES.client)).run(...sqliteWriter.values(OAUTH_TABLE_SHAPES.client, client, tenant));
 * ```
 */
export function createRowWriter(dialect: SqlWriteDialect): RowWriter {
  return {
    insert: (shape, options) => insertStatement(shape, dialect, options),
    values: (shape, record, tenant) => rowValues(shape, record, dialect, tenant),
    key: (shape, record, tenant) => keyValues(shape, record, dialect, tenant),
  };
}
