import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { temporaryDatabases } from './temp-database.js';

const databases = temporaryDatabases();

describe('the database file and its WAL companions are readable by their owner only', () => {
  it('creates the file, -wal and -shm with mode 0600', () => {
    const path = databases.path();
    const db = databases.file(path);
    db.exec('CREATE TABLE t (x); INSERT INTO t VALUES (1)');
    for (const file of [path, `${path}-wal`, `${path}-shm`]) {
      expect((statSync(file).mode & 0o777).toString(8), file).toBe('600');
    }
  });
});
