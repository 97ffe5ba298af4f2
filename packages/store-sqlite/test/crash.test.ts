import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ensureBuiltPackage, writeBurstModuleUrl } from '@keyhold/store-sql-common/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { createSqliteClaimStore } from '../src/claim-store.js';
import { openSqliteDatabase } from '../src/database.js';
import { createSqliteOAuthStorage } from '../src/oauth-store.js';
import { temporaryDatabases } from './temp-database.js';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

const fixture = join(packageDir, 'test/fixtures/write-burst.mjs');

const databases = temporaryDatabases();
beforeAll(() => ensureBuiltPackage(packageDir), 120_000);

/** Starts the burst, SIGKILLs the child once it has reported `killAfter` commits, and returns what it reported. */
async function burstAndKill(
  path: string,
  killAfter: number,
): Promise<{ refresh: string[]; claims: string[] }> {
  const child: ChildProcess = spawn(process.execPath, [fixture, writeBurstModuleUrl(), path], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const reported = { refresh: [] as string[], claims: [] as string[] };
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on('exit', (_code, signal) => resolve(signal)),
  );
  for await (const line of createInterface({ input: child.stdout as NodeJS.ReadableStream })) {
    const [kind, id] = line.split(' ');
    if (kind === 'refresh' && id) reported.refresh.push(id);
    if (kind === 'claim' && id) reported.claims.push(id);
    if (reported.refresh.length + reported.claims.length >= killAfter && !child.killed) child.kill('SIGKILL');
  }
  expect(await exited).toBe('SIGKILL');
  return reported;
}

describe('a SIGKILL during a write burst', () => {
  it('loses no write the process saw committed, and leaves a sound, usable database', async () => {
    const path = databases.path();
    // Enough commits to be mid-burst when killed; every one is a durable fsync, which takes long on a loaded
    // machine, hence the generous timeout (the property does not depend on the count).
    const reported = await burstAndKill(path, 800);
    expect(reported.refresh.length).toBeGreaterThan(200);

    const db = openSqliteDatabase(path);
    expect(db.prepare('PRAGMA integrity_check').get()).toMatchObject({ integrity_check: 'ok' });
    const oauth = createSqliteOAuthStorage(db);
    const claims = createSqliteClaimStore(db);
    for (const tokenHash of reported.refresh) {
      const record = await oauth.refreshTokens.get('crash', tokenHash);
      expect(record?.consumedAt, tokenHash).toBeDefined();
      expect(await oauth.refreshTokens.get('crash', `${tokenHash}-next`), tokenHash).toBeDefined();
    }
    for (const code of reported.claims) expect(await claims.get(code), code).toBeDefined();

    // Usable: a new write after the crash goes through and reads back.
    expect(await claims.insert({ code: 'AFTERX', scopeDir: '/tmp', createdAt: 1, expiresAt: 2 })).toBe(true);
    expect(await claims.get('AFTERX')).toMatchObject({ code: 'AFTERX' });
    db.close();
  }, 120_000);
});
