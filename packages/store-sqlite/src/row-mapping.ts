/** A row as the driver returns it: column name → value (libsql adds a `_metadata` key, which we never read). */
export type Row = Record<string, unknown>;

/** Reads a TEXT column that is never NULL. */
export function text(row: Row, column: string): string {
  return String(row[column]);
}

/** Reads an INTEGER column that is never NULL (epoch ms fit in a double exactly). */
export function integer(row: Row, column: string): number {
  return Number(row[column]);
}

/** Reads a JSON-encoded string array. */
export function stringArray(row: Row, column: string): string[] {
  return JSON.parse(String(row[column])) as string[];
}

/**
 * Copies the nullable columns that are non-NULL into `target` under their record names, so optional
 * fields are omitted rather than `null` (the storage contract says so).
 */
export function withOptional<T extends object>(
  target: T,
  row: Row,
  columns: Readonly<Record<string, string>>,
  kind: 'text' | 'integer' = 'text',
): T {
  const out = target as Record<string, unknown>;
  for (const [field, column] of Object.entries(columns)) {
    const value = row[column];
    if (value !== null && value !== undefined) out[field] = kind === 'text' ? String(value) : Number(value);
  }
  return target;
}
