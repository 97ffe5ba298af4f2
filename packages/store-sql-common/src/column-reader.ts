/** A row as the driver returns it: column name → value. Drivers may add keys the mappers never read. */
export type Row = Record<string, unknown>;

/**
 * How one SQL dialect's driver hands back each kind of column. The record mappers read every column
 * through it, so a store supplies only its encoding (SQLite: INTEGER and JSON-encoded string arrays;
 * PostgreSQL: BIGINT as a string and TEXT[] as an array).
 *
 * @example
 * ```ts
 * const columns: ColumnReader = createColumnReader({ stringArray: (value) => JSON.parse(String(value)) });
 * columns.integer({ expires_at: '1700000000000' }, 'expires_at'); // 1700000000000
 * ```
 */
export interface ColumnReader {
  /** A TEXT column that is never NULL. */
  text(row: Row, column: string): string;
  /** An integer column (epoch ms fit a double exactly) that is never NULL. */
  integer(row: Row, column: string): number;
  /** A nullable TEXT column: NULL reads as `undefined`. */
  optionalText(row: Row, column: string): string | undefined;
  /** A nullable integer column: NULL reads as `undefined`. */
  optionalInteger(row: Row, column: string): number | undefined;
  /** A string-array column that is never NULL. */
  stringArray(row: Row, column: string): string[];
  /** A nullable string-array column: NULL reads as `undefined`. */
  optionalStringArray(row: Row, column: string): string[] | undefined;
}

/** What differs between the dialects: how a string array is stored. */
export interface ColumnEncoding {
  /** Decodes a non-NULL string-array column value. */
  stringArray(value: unknown): string[];
}

function isNull(value: unknown): value is null | undefined {
  return value === null || value === undefined;
}

/**
 * A {@link ColumnReader} for a driver that returns TEXT as strings and integers as numbers or decimal
 * strings (both read with `Number`), decoding string arrays with `encoding.stringArray`.
 *
 * @example
 * ```ts
 * const postgresColumns = createColumnReader({ stringArray: (value) => [...(value as string[])] });
 * ```
 */
export function createColumnReader(encoding: ColumnEncoding): ColumnReader {
  return {
    text: (row, column) => String(row[column]),
    integer: (row, column) => Number(row[column]),
    optionalText: (row, column) => {
      const value = row[column];
      return isNull(value) ? undefined : String(value);
    },
    optionalInteger: (row, column) => {
      const value = row[column];
      return isNull(value) ? undefined : Number(value);
    },
    stringArray: (row, column) => encoding.stringArray(row[column]),
    optionalStringArray: (row, column) => {
      const value = row[column];
      return isNull(value) ? undefined : encoding.stringArray(value);
    },
  };
}

/**
 * Splits a space-joined scope column ('' is no scopes). Both dialects store scope sets this way where the
 * column is part of a key or sorted on.
 *
 * @example
 * ```ts
 * splitScopes('read write'); // ['read', 'write']
 * splitScopes(''); // []
 * ```
 */
export function splitScopes(joined: string): string[] {
  return joined === '' ? [] : joined.split(' ');
}

/**
 * Sets each optional field whose value is defined, so absent fields are omitted rather than `undefined`
 * (the storage contracts say so, and `toStrictEqual` in the conformance suites checks it).
 */
export function withOptional<T extends object>(target: T, fields: Readonly<Record<string, unknown>>): T {
  const out = target as Record<string, unknown>;
  for (const [field, value] of Object.entries(fields)) {
    if (value !== undefined) out[field] = value;
  }
  return target;
}
