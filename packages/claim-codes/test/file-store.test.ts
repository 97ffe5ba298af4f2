import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFileClaimStore } from '../src/file-store.js';
import type { ClaimRecord } from '../src/storage.js';
import { describeClaimStoreConformance } from '../src/testing.js';

function freshDir(): string {
  return join(mkdtempSync(join(tmpdir(), 'claim-file-store-')), 'data');
}

const record = (code: string, overrides: Partial<ClaimRecord> = {}): ClaimRecord => ({
  code,
  scopeDir: '/workspace/proj',
  createdAt: 1_000,
  expiresAt: 9_000_000_000_000,
  ...overrides,
});

describeClaimStoreConformance('file', () => createFileClaimStore({ dataDir: freshDir() }));

describe('file store: one JSON file, mode 0600 in a 0700 directory', () => {
  it('creates the data directory 0700 and the file 0600', async () => {
    const dataDir = freshDir();
    const store = createFileClaimStore({ dataDir });
    await store.insert(record('ABCDEF'));
    expect(store.path).toBe(join(dataDir, 'claims.json'));
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
  });

  it('writes a versioned JSON document of the records and leaves no temporary or lock file', async () => {
    const dataDir = freshDir();
    const store = createFileClaimStore({ dataDir });
    await store.insert(record('ABCDEF', { label: 'x' }));
    await store.insert(record('GHJKMN'));
    expect(JSON.parse(readFileSync(store.path, 'utf8'))).toEqual({
      version: 1,
      claims: [record('ABCDEF', { label: 'x' }), record('GHJKMN')],
    });
    expect(readdirSync(dataDir)).toEqual(['claims.json']);
  });

  it('keeps 0600 when it replaces a file that was more open', async () => {
    const dataDir = freshDir();
    const store = createFileClaimStore({ dataDir });
    await store.insert(record('ABCDEF'));
    chmodSync(store.path, 0o644);
    await store.insert(record('GHJKMN'));
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
  });
});

describe('file store: survives restarts and sees other processes at once', () => {
  it('reads the records a previous instance wrote', async () => {
    const dataDir = freshDir();
    await createFileClaimStore({ dataDir }).insert(record('ABCDEF'));
    expect(await createFileClaimStore({ dataDir }).get('ABCDEF')).toEqual(record('ABCDEF'));
  });

  it('sees a code another instance creates or revokes on its very next read', async () => {
    const dataDir = freshDir();
    const daemon = createFileClaimStore({ dataDir });
    const cli = createFileClaimStore({ dataDir });
    expect(await daemon.get('ABCDEF')).toBeUndefined();
    await cli.insert(record('ABCDEF'));
    expect(await daemon.get('ABCDEF')).toEqual(record('ABCDEF'));
    await cli.delete('ABCDEF');
    expect(await daemon.get('ABCDEF')).toBeUndefined();
    await cli.insert(record('ABCDEF', { scopeDir: '/other' }));
    expect((await daemon.get('ABCDEF'))?.scopeDir).toBe('/other');
  });

  it('sees a change that keeps the size, even within one timestamp tick', async () => {
    const dataDir = freshDir();
    const daemon = createFileClaimStore({ dataDir });
    const cli = createFileClaimStore({ dataDir });
    await cli.insert(record('ABCDEF'));
    expect(await daemon.get('ABCDEF')).toBeDefined();
    const before = statSync(cli.path);
    await cli.delete('ABCDEF');
    await cli.insert(record('GHJKMN'));
    // Same length, and the old timestamps forced back: only the content tells the two files apart.
    utimesSync(cli.path, before.atime, before.mtime);
    expect(statSync(cli.path).size).toBe(before.size);
    expect(await daemon.get('ABCDEF')).toBeUndefined();
    expect(await daemon.get('GHJKMN')).toBeDefined();
  });

  it('answers an empty store when the file does not exist yet, without creating anything', async () => {
    const dataDir = freshDir();
    const store = createFileClaimStore({ dataDir });
    expect(await store.list()).toEqual([]);
    expect(() => statSync(dataDir)).toThrow();
  });
});

describe('file store: a corrupt or unreadable file is a clear error and never replaced', () => {
  for (const [what, text] of [
    ['not JSON', '{"version": 1, "claims": ['],
    ['empty', ''],
    ['JSON of the wrong shape', '{"version": 1, "claims": [{"code": "nope"}]}'],
    ['a newer version', '{"version": 2, "claims": []}'],
  ] as const) {
    it(`refuses a file that is ${what}, for reads and writes, and leaves it untouched`, async () => {
      const dataDir = freshDir();
      mkdirSync(dataDir, { recursive: true });
      const store = createFileClaimStore({ dataDir });
      writeFileSync(store.path, text);
      await expect(store.get('ABCDEF')).rejects.toMatchObject({ code: 'ERR_STORE_CORRUPT' });
      await expect(store.list()).rejects.toThrow(/corrupt.*left untouched/);
      await expect(store.insert(record('ABCDEF'))).rejects.toMatchObject({ code: 'ERR_STORE_CORRUPT' });
      expect(readFileSync(store.path, 'utf8')).toBe(text);
      expect(readdirSync(dataDir)).toEqual(['claims.json']);
    });
  }

  it('refuses a file that holds one code twice', async () => {
    const dataDir = freshDir();
    mkdirSync(dataDir, { recursive: true });
    const store = createFileClaimStore({ dataDir });
    writeFileSync(store.path, JSON.stringify({ version: 1, claims: [record('ABCDEF'), record('ABCDEF')] }));
    await expect(store.get('ABCDEF')).rejects.toThrow(/appears twice/);
  });

  it('reports an unreadable file as ERR_STORE_UNREADABLE', async () => {
    const dataDir = freshDir();
    const store = createFileClaimStore({ dataDir });
    mkdirSync(store.path, { recursive: true });
    await expect(store.get('ABCDEF')).rejects.toMatchObject({ code: 'ERR_STORE_UNREADABLE' });
  });
});

describe('file store: the lock file', () => {
  function deadPid(): number {
    return Number(
      execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).toString(),
    );
  }

  it('breaks a lock left by a process that no longer runs', async () => {
    const dataDir = freshDir();
    mkdirSync(dataDir, { recursive: true });
    const store = createFileClaimStore({ dataDir, lockTimeoutMs: 2_000 });
    writeFileSync(`${store.path}.lock`, JSON.stringify({ pid: deadPid(), hostname: hostname(), nonce: 'x' }));
    expect(await store.insert(record('ABCDEF'))).toBe(true);
    expect(readdirSync(dataDir)).toEqual(['claims.json']);
  });

  it('waits for a live lock and gives up with ERR_STORE_LOCKED', async () => {
    const dataDir = freshDir();
    mkdirSync(dataDir, { recursive: true });
    const store = createFileClaimStore({ dataDir, lockTimeoutMs: 150 });
    writeFileSync(
      `${store.path}.lock`,
      JSON.stringify({ pid: process.ppid, hostname: hostname(), nonce: 'x' }),
    );
    await expect(store.insert(record('ABCDEF'))).rejects.toMatchObject({ code: 'ERR_STORE_LOCKED' });
    expect(await store.get('ABCDEF')).toBeUndefined();
  });

  it('breaks a lock older than staleLockMs even when its owner cannot be checked', async () => {
    const dataDir = freshDir();
    mkdirSync(dataDir, { recursive: true });
    const store = createFileClaimStore({ dataDir, staleLockMs: 1_000 });
    const lockPath = `${store.path}.lock`;
    writeFileSync(lockPath, JSON.stringify({ pid: 1, hostname: 'another-host', nonce: 'x' }));
    const old = new Date(Date.now() - 5_000);
    utimesSync(lockPath, old, old);
    expect(await store.insert(record('ABCDEF'))).toBe(true);
  });

  it('removes a temporary file a crashed writer left behind, on the next write', async () => {
    const dataDir = freshDir();
    mkdirSync(dataDir, { recursive: true });
    const store = createFileClaimStore({ dataDir });
    const leftover = join(dataDir, `claims.json.${deadPid()}.abcdef012345.tmp`);
    writeFileSync(leftover, '{"version": 1, "cla');
    const unrelated = join(dataDir, 'notes.tmp');
    writeFileSync(unrelated, 'mine');
    await store.insert(record('ABCDEF'));
    expect(readdirSync(dataDir).sort()).toEqual(['claims.json', 'notes.tmp']);
  });

  it('refuses bad options at creation', () => {
    expect(() => createFileClaimStore({ dataDir: freshDir(), lockTimeoutMs: 0 })).toThrow(/lockTimeoutMs/);
    expect(() => createFileClaimStore({ dataDir: freshDir(), fileName: '../x.json' })).toThrow(/fileName/);
    expect(() => createFileClaimStore({ dataDir: freshDir(), staleLockMs: 2.5 })).toThrow(/staleLockMs/);
  });

  it('refuses a missing data directory with ERR_INVALID_OPTIONS (it was a TypeError)', () => {
    for (const dataDir of [undefined, '']) {
      expect(() => createFileClaimStore({ dataDir } as never)).toThrow(
        expect.objectContaining({ name: 'ClaimCodesError', code: 'ERR_INVALID_OPTIONS' }),
      );
    }
  });
});
