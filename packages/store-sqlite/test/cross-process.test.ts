import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ensureBuiltPackage } from '@keyhold/store-sql-common/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { openSqliteDatabase } from '../src/database.js';
import { createSqliteOAuthStorage } from '../src/oauth-store.js';
import { temporaryDatabases } from './temp-database.js';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

const run = promisify(execFile);

const databases = temporaryDatabases();
beforeAll(() => ensureBuiltPackage(packageDir), 120_000);

describe('single-use operations across processes sharing one file', () => {
  it('each refresh token (and its one successor), code, claim code and lease is won by exactly one of four processes', async () => {
    // Every attempt must give each item exactly one winner. On a loaded two-core machine one process can
    // hold the write lock through its whole run while the others sleep in the busy handler, and then nothing
    // raced: that attempt still counts for exactly-once, and the race is run again (up to three times) until
    // more than one process won something.
    let raced = false;
    for (let attempt = 0; attempt < 3 && !raced; attempt++) {
      const winners = await raceOnce();
      raced = winners > 1;
    }
    expect(raced, 'in three attempts the processes never raced').toBe(true);
  });
});

/** Runs one four-process race on a fresh file, checks exactly-once, and returns how many processes won something. */
async function raceOnce(): Promise<number> {
  const path = databases.path();
  const count = 1500;
  const db = openSqliteDatabase(path);
  const oauth = createSqliteOAuthStorage(db);
  db.exec('BEGIN');
  for (let i = 0; i < count; i++) {
    await oauth.refreshTokens.save('race', {
      tokenHash: `rt-${i}`,
      familyId: 'f',
      clientId: 'c',
      clientType: 'registered',
      userId: 'u',
      scope: '',
      resources: [],
      createdAt: 0,
      expiresAt: 10_000_000,
    });
    await oauth.authorizationCodes.save('race', {
      codeHash: `code-${i}`,
      clientId: 'c',
      clientType: 'registered',
      userId: 'u',
      redirectUri: 'https://app.example/cb',
      codeChallenge: 'x',
      scope: '',
      resources: [],
      authTime: 0,
      expiresAt: 10_000_000,
    });
  }
  db.exec('COMMIT');
  // The racers' start barrier: each checks in here and waits for the others.
  db.exec('CREATE TABLE race_ready (pid INTEGER NOT NULL)');
  db.close();

  const outputs = await Promise.all(
    Array.from({ length: 4 }, () =>
      run(process.execPath, [join(packageDir, 'test/fixtures/race.mjs'), path, String(count), '4']),
    ),
  );
  const perProcess = outputs.map(({ stdout }) => JSON.parse(stdout) as string[]);
  const wins = perProcess.flat();
  const tally = new Map<string, number>();
  for (const win of wins) tally.set(win, (tally.get(win) ?? 0) + 1);
  for (const kind of ['refresh', 'code', 'claim', 'lease']) {
    for (let i = 0; i < count; i++) expect(tally.get(`${kind}:${i}`), `${kind}:${i}`).toBe(1);
  }
  expect(wins).toHaveLength(4 * count);
  // Each rotation inserted its successor in the same transaction: one successor per token, no more.
  const check = openSqliteDatabase(path);
  const successors = check
    .prepare("SELECT count(*) AS n FROM keyhold_oauth_refresh_tokens WHERE token_hash LIKE 'rt-%-next-%'")
    .get() as { n: number };
  check.close();
  expect(successors.n).toBe(count);
  return perProcess.filter((won) => won.length > 0).length;
}
