import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { migratePostgres, type PostgresPool, withTransaction } from '@keyhold/store-postgres';
import { migrateSqlite, type SqliteDatabase } from '@keyhold/store-sqlite';
import type { QueryResultRow } from 'pg';

/**
 * Values the host generates once and every instance must then share (secrets, signing keys), kept in
 * PostgreSQL so several machines need no shared filesystem. The first instance to store a name wins;
 * the others read the winner.
 */
export interface HostState {
  get(name: string): Promise<string | undefined>;
  /** Stores `value` under `name` unless a value is there already; answers the stored value (the winner's). */
  putIfAbsent(name: string, value: string): Promise<string>;
}

/**
 * The records of the host's tool modules (notes, push events), in the configured store, so every instance
 * answers alike and a killed instance loses nothing.
 */
export interface HostRecords {
  /** Appends a record to the collection; answers how many the collection holds now. */
  append(collection: string, value: unknown): Promise<number>;
  /** The newest `limit` records of the collection (default 200), oldest first. */
  list(collection: string, limit?: number): Promise<unknown[]>;
}

const DEFAULT_LIST_LIMIT = 200;

// The example host's own tables, migrated like the packages' (under the advisory lock on PostgreSQL, so
// instances starting at once take turns).
const POSTGRES_MIGRATIONS = [
  {
    version: 1,
    name: 'create host state and records',
    sql: `
CREATE TABLE keyhold_host_state (name TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE keyhold_host_records (
  id BIGSERIAL PRIMARY KEY, collection TEXT NOT NULL, value TEXT NOT NULL
);
CREATE INDEX keyhold_host_records_collection ON keyhold_host_records (collection, id);
`,
  },
];

const SQLITE_MIGRATIONS = [
  {
    version: 1,
    name: 'create host records',
    sql: `
CREATE TABLE keyhold_host_records (
  id INTEGER PRIMARY KEY AUTOINCREMENT, collection TEXT NOT NULL, value TEXT NOT NULL
);
CREATE INDEX keyhold_host_records_collection ON keyhold_host_records (collection, id);
`,
  },
];

/** The host's state and records in PostgreSQL, after creating their tables. */
export async function openPostgresHostState(
  pool: PostgresPool,
): Promise<{ state: HostState; records: HostRecords }> {
  await migratePostgres(pool, 'example-host', POSTGRES_MIGRATIONS);
  // Each statement through the package's withTransaction, so a lost or stalled database fails the way the
  // packages' own stores do (StorageUnavailableError, a broken connection discarded), not with pg's error.
  const query = <Row extends QueryResultRow>(text: string, values: unknown[]) =>
    withTransaction(pool, (client) => client.query<Row>(text, values));
  const get = async (name: string): Promise<string | undefined> =>
    (await query<{ value: string }>('SELECT value FROM keyhold_host_state WHERE name = $1', [name])).rows[0]
      ?.value;
  return {
    state: {
      get,
      async putIfAbsent(name, value) {
        // Two statements, not one: under READ COMMITTED the SELECT takes a fresh snapshot and so sees a
        // row another instance committed while this INSERT waited on it.
        await query(
          'INSERT INTO keyhold_host_state (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING',
          [name, value],
        );
        const stored = await get(name);
        if (stored === undefined) throw new Error(`host state ${name} vanished after it was stored`);
        return stored;
      },
    },
    records: {
      async append(collection, value) {
        const { rows } = await query<{ count: string }>(
          `WITH added AS (INSERT INTO keyhold_host_records (collection, value) VALUES ($1, $2) RETURNING id)
           SELECT (SELECT count(*) FROM keyhold_host_records WHERE collection = $1) + 1 AS count`,
          [collection, JSON.stringify(value)],
        );
        return Number(rows[0]?.count ?? 0);
      },
      async list(collection, limit = DEFAULT_LIST_LIMIT) {
        const { rows } = await query<{ value: string }>(
          `SELECT value FROM (SELECT id, value FROM keyhold_host_records WHERE collection = $1
           ORDER BY id DESC LIMIT $2) newest ORDER BY id`,
          [collection, limit],
        );
        return rows.map((row) => JSON.parse(row.value));
      },
    },
  };
}

/** The tool modules' records in the SQLite file (the data directory's `keyhold.db`). */
export function openSqliteHostRecords(db: SqliteDatabase): HostRecords {
  migrateSqlite(db, 'example-host', SQLITE_MIGRATIONS);
  const insert = db.prepare('INSERT INTO keyhold_host_records (collection, value) VALUES (?, ?)');
  const count = db.prepare('SELECT count(*) AS count FROM keyhold_host_records WHERE collection = ?');
  const list = db.prepare(
    `SELECT value FROM (SELECT id, value FROM keyhold_host_records WHERE collection = ?
     ORDER BY id DESC LIMIT ?) ORDER BY id`,
  );
  // One transaction, so the count includes this record and no other process's insert in between.
  const append = db.transaction((collection: string, value: string): number => {
    insert.run(collection, value);
    return Number((count.get(collection) as { count: number }).count);
  });
  return {
    async append(collection, value) {
      return append(collection, JSON.stringify(value));
    },
    async list(collection, limit = DEFAULT_LIST_LIMIT) {
      return (list.all(collection, limit) as { value: string }[]).map((row) => JSON.parse(row.value));
    },
  };
}

/**
 * Creates `path` with `content` unless it exists, and answers the file's content: this process's when it
 * created the file, else the winner's. The content goes to a temporary file first and is then linked into
 * place, so no process ever reads a half-written file, and an existing file is never overwritten.
 */
export function writeFileOnce(path: string, content: string): string {
  const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temp, content, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(temp, path);
    return content;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readFileSync(path, 'utf8');
  } finally {
    rmSync(temp, { force: true });
  }
}

/**
 * Replaces `path` with `content` in one step (a temporary file renamed over it), for the upgrade of a file
 * an older version wrote; answers the content the file holds afterwards.
 */
export function replaceFile(path: string, content: string): string {
  const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temp, content, { mode: 0o600, flag: 'wx' });
  renameSync(temp, path);
  // Another instance upgrading at the same moment may have renamed its file over this one: use what won.
  return readFileSync(path, 'utf8');
}
