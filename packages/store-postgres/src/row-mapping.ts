/** A row as `pg` returns it: column name → value. BIGINT arrives as a string, TEXT[] as an array. */
export type Row = Record<string, unknown>;

/** Reads a TEXT column that is never NULL. */
export function text(row: Row, column: string): string {
  return String(row[column]);
}

/** Reads a BIGINT column (epoch ms, which fits a double exactly) that is never NULL. */
export function integer(row: Row, column: string): number {
  return Number(row[column]);
}

/** Reads a TEXT[] column. */
export function stringArray(row: Row, column: string): string[] {
  return [...(row[column] as string[])];
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
