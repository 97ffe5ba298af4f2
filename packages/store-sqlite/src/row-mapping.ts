import type { ColumnReader, RowWriter } from '@keyhold/store-sql-common';
import { createColumnReader, createRowWriter } from '@keyhold/store-sql-common';

export type { Row } from '@keyhold/store-sql-common';

/** libsql returns INTEGER as a number and TEXT as a string; string arrays are stored as JSON text. */
export const sqliteColumns: ColumnReader = createColumnReader({
  stringArray: (value) => JSON.parse(String(value)) as string[],
});

/** libsql takes `?` placeholders; string arrays are written as JSON text. */
export const sqliteWriter: RowWriter = createRowWriter({
  placeholder: () => '?',
  stringArray: (value) => JSON.stringify(value),
});
