import type { ColumnReader, RowWriter } from '@keyhold/store-sql-common';
import { createColumnReader, createRowWriter } from '@keyhold/store-sql-common';

export type { Row } from '@keyhold/store-sql-common';

/** `pg` returns BIGINT as a decimal string (read with `Number`) and TEXT[] as an array, copied here. */
export const postgresColumns: ColumnReader = createColumnReader({
  stringArray: (value) => [...(value as string[])],
});

/** `pg` takes `$n` placeholders and a JavaScript array for TEXT[] (copied, so a record never aliases it). */
export const postgresWriter: RowWriter = createRowWriter({
  placeholder: (position) => `$${position}`,
  stringArray: (value) => [...value],
});
