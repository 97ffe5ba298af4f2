import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync, type Stats, statSync } from 'node:fs';
import { mkdir, open, readdir, rename, stat, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type Logger, silentLogger } from '@keyhold/core';
import { optionValidators } from '@keyhold/internal';
import * as z from 'zod';
import { CLAIM_CODE_ALPHABET, CLAIM_CODE_LENGTH } from './code.js';
import { ClaimCodesError } from './errors.js';
import { isProcessAlive, withFileLock } from './file-lock.js';
import type { ClaimRecord, ClaimStore } from './storage.js';
import { systemErrorCode } from './system-error.js';

const check = optionValidators(ClaimCodesError);

/**
 * Options of {@link createFileClaimStore}.
 */
export interface FileClaimStoreOptions {
  /** The data directory; created with mode 0700 when missing. Relative paths resolve against `process.cwd()`. */
  readonly dataDir: string;
  /** Default `claims.json`. */
  readonly fileName?: string;
  /** How long a write waits for the lock before `ERR_STORE_LOCKED`. Default 10 000. */
  readonly lockTimeoutMs?: number;
  /** Age after which a lock whose owner cannot be checked is broken. Default 30 000. */
  readonly staleLockMs?: number;
  /** Default: silent. */
  readonly logger?: Logger;
}

/**
 * A {@link ClaimStore} kept in one JSON file, shared safely by a daemon and any number of CLI processes.
 *
 * @example
 * ```ts
 * const store: FileClaimStore = createFileClaimStore({ dataDir: '.keyhold' });
 * store.path; // '/workspace/.keyhold/claims.json'
 * ```
 */
export interface FileClaimStore extends ClaimStore {
  /** The absolute path of the claim file. */
  readonly path: string;
}

const FILE_VERSION = 1;
// Inside this window after a file's last change, a later change could leave the same inode, size and
// (coarse) timestamps — the "racy git" problem — so the cache compares content instead of trusting stat.
const RACY_WINDOW_MS = 3_000;

const claimFileSchema = z.object({
  version: z.literal(FILE_VERSION),
  claims: z.array(
    z.object({
      code: z.string().regex(new RegExp(`^[${CLAIM_CODE_ALPHABET}]{${CLAIM_CODE_LENGTH}}$`)),
      scopeDir: z.string().min(1),
      createdAt: z.number().finite(),
      expiresAt: z.number().finite(),
      label: z.string().optional(),
    }),
  ),
});

interface Snapshot {
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly text: string;
  readonly records: ReadonlyMap<string, ClaimRecord>;
  racy: boolean;
}

const EMPTY: ReadonlyMap<string, ClaimRecord> = new Map();

/**
 * Creates a {@link FileClaimStore}.
 *
 * - The file (`<dataDir>/claims.json`, mode 0600, in a directory created with mode 0700) is replaced
 *   atomically on every write: a temporary file in the same directory is written, fsynced and renamed over
 *   it, and the directory is fsynced.
 * - Writers serialise through a lock file (`claims.json.lock`, see the README), so a CLI and a running
 *   daemon, or many CLIs at once, never lose each other's writes.
 * - Reads need no lock. The parsed file is cached and one `stat` per read decides whether it changed
 *   (device, inode, size, mtime, ctime), so a code created or revoked by another process counts on the very
 *   next read.
 * - A file that is not valid JSON, or not a claim file, throws `ERR_STORE_CORRUPT` on every read and write
 *   and is never replaced; fix or move it by hand.
 *
 * @example
 * ```ts
 * const claims = createClaims({ store: createFileClaimStore({ dataDir: '.keyhold' }) });
 * ```
 */
export function createFileClaimStore(options: FileClaimStoreOptions): FileClaimStore {
  if (typeof options?.dataDir !== 'string' || options.dataDir === '') {
    throw check.invalid('dataDir must be a directory path');
  }
  const dataDir = resolve(options.dataDir);
  const fileName = options.fileName ?? 'claims.json';
  if (typeof fileName !== 'string' || fileName === '' || fileName.includes('/') || fileName.includes('\\')) {
    throw check.invalid('fileName must be a plain file name');
  }
  const lockTimeoutMs = check.positiveInteger('lockTimeoutMs', options.lockTimeoutMs, 10_000);
  const staleLockMs = check.positiveInteger('staleLockMs', options.staleLockMs, 30_000);
  const logger = options.logger ?? silentLogger;
  const path = join(dataDir, fileName);
  const lock = { lockPath: `${path}.lock`, lockTimeoutMs, staleLockMs, logger };

  let snapshot: Snapshot | undefined;
  // Writes from this process queue here first, so they do not compete for the lock file with each other.
  let writeQueue: Promise<unknown> = Promise.resolve();

  function current(): ReadonlyMap<string, ClaimRecord> {
    let stats: Stats | undefined;
    try {
      stats = statSync(path, { throwIfNoEntry: false });
    } catch (cause) {
      throw new ClaimCodesError('ERR_STORE_UNREADABLE', `Cannot read the claim file ${path}.`, { cause });
    }
    if (stats === undefined) {
      snapshot = undefined;
      return EMPTY;
    }
    if (snapshot !== undefined && !snapshot.racy && sameFile(snapshot, stats)) return snapshot.records;
    return reload();
  }

  function reload(): ReadonlyMap<string, ClaimRecord> {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch (cause) {
      if (systemErrorCode(cause) === 'ENOENT') {
        snapshot = undefined;
        return EMPTY;
      }
      throw new ClaimCodesError('ERR_STORE_UNREADABLE', `Cannot read the claim file ${path}.`, { cause });
    }
    let stats: Stats;
    let text: string;
    try {
      // fstat and read through one descriptor, so the signature and the content belong to the same file.
      stats = fstatSync(fd);
      text = readFileSync(fd, 'utf8');
    } catch (cause) {
      throw new ClaimCodesError('ERR_STORE_UNREADABLE', `Cannot read the claim file ${path}.`, { cause });
    } finally {
      closeSync(fd);
    }
    const records = snapshot !== undefined && snapshot.text === text ? snapshot.records : parse(text);
    snapshot = {
      dev: stats.dev,
      ino: stats.ino,
      size: stats.size,
      mtimeMs: stats.mtimeMs,
      ctimeMs: stats.ctimeMs,
      text,
      records,
      racy: Date.now() - Math.max(stats.mtimeMs, stats.ctimeMs) < RACY_WINDOW_MS,
    };
    return records;
  }

  function parse(text: string): ReadonlyMap<string, ClaimRecord> {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (cause) {
      throw corrupt('it is not valid JSON', cause);
    }
    const parsed = claimFileSchema.safeParse(json);
    if (!parsed.success) throw corrupt(`it is not a version ${FILE_VERSION} claim file`, parsed.error);
    const records = new Map<string, ClaimRecord>();
    for (const claim of parsed.data.claims) {
      if (records.has(claim.code)) throw corrupt(`the code ${claim.code.slice(0, 2)}… appears twice`);
      const { label, ...required } = claim;
      records.set(claim.code, Object.freeze(label === undefined ? required : { ...required, label }));
    }
    return records;
  }

  function corrupt(why: string, cause?: unknown): ClaimCodesError {
    return new ClaimCodesError(
      'ERR_STORE_CORRUPT',
      `The claim file ${path} is corrupt (${why}). It was left untouched: repair it, or move it away to start empty.`,
      { cause },
    );
  }

  /** Runs `change` on a fresh copy of the records under the lock, and writes the copy when it says so. */
  function mutate<T>(
    change: (records: Map<string, ClaimRecord>) => { result: T; changed: boolean },
  ): Promise<T> {
    const run = async (): Promise<T> => {
      await ensureDataDir();
      return withFileLock(lock, async () => {
        const records = new Map(current());
        const { result, changed } = change(records);
        if (changed) {
          await removeAbandonedTemporaries();
          await write(records);
        }
        return result;
      });
    };
    const next = writeQueue.then(run, run);
    writeQueue = next.catch(() => {});
    return next;
  }

  async function ensureDataDir(): Promise<void> {
    try {
      await mkdir(dataDir, { recursive: true, mode: 0o700 });
    } catch (cause) {
      throw new ClaimCodesError('ERR_STORE_UNREADABLE', `Cannot create the data directory ${dataDir}.`, {
        cause,
      });
    }
  }

  /**
   * Deletes files left by writers that crashed mid-write or mid-lock: `claims.json.<pid>.<id>.tmp`, and
   * `claims.json.lock.<pid>.<id>.acquire` / `.stale`. Only the lock holder writes a temporary file, so under
   * the lock any other is abandoned once its process is gone (or it is older than `staleLockMs`).
   */
  async function removeAbandonedTemporaries(): Promise<void> {
    const prefix = `${fileName}.`;
    for (const name of await readdir(dataDir).catch(() => [])) {
      if (!name.startsWith(prefix)) continue;
      const rest = name.slice(prefix.length).replace(/^lock\./, '');
      const [pid, id, kind, extra] = rest.split('.');
      const known = kind === 'tmp' || kind === 'acquire' || kind === 'stale';
      if (!known || pid === undefined || !/^\d+$/.test(pid) || id === undefined || extra !== undefined)
        continue;
      if (Number(pid) === process.pid) continue;
      const file = join(dataDir, name);
      const ageMs = Date.now() - ((await stat(file).catch(() => undefined))?.mtimeMs ?? Date.now());
      if (!isProcessAlive(Number(pid)) || ageMs > staleLockMs) {
        await unlink(file).catch(() => {});
        logger.warn({ file: name }, 'abandoned temporary claim file removed');
      }
    }
  }

  async function write(records: ReadonlyMap<string, ClaimRecord>): Promise<void> {
    const claims = [...records.values()].sort(
      (a, b) => a.createdAt - b.createdAt || (a.code < b.code ? -1 : 1),
    );
    const text = `${JSON.stringify({ version: FILE_VERSION, claims }, null, 2)}\n`;
    const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      const handle = await open(temporary, 'wx', 0o600);
      try {
        await handle.writeFile(text, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, path);
    } catch (cause) {
      await unlink(temporary).catch(() => {});
      throw new ClaimCodesError('ERR_STORE_UNREADABLE', `Cannot write the claim file ${path}.`, { cause });
    }
    await syncDirectory(dataDir);
    // We hold the lock, so the file at `path` is the one just written: cache it instead of parsing it back.
    const stats = statSync(path, { throwIfNoEntry: false });
    snapshot =
      stats === undefined
        ? undefined
        : {
            dev: stats.dev,
            ino: stats.ino,
            size: stats.size,
            mtimeMs: stats.mtimeMs,
            ctimeMs: stats.ctimeMs,
            text,
            records: new Map([...records].map(([code, record]) => [code, Object.freeze(record)])),
            racy: true,
          };
  }

  return {
    path,
    insert: (record) =>
      mutate((records) => {
        if (records.has(record.code)) return { result: false, changed: false };
        const { label, ...required } = record;
        records.set(record.code, label === undefined ? { ...required } : { ...required, label });
        return { result: true, changed: true };
      }),
    get: async (code) => current().get(code),
    list: async () => [...current().values()],
    delete: async (code) => {
      if (!current().has(code)) return false;
      return mutate((records) => {
        const removed = records.delete(code);
        return { result: removed, changed: removed };
      });
    },
    deleteExpired: async (now) => {
      if (![...current().values()].some((record) => record.expiresAt <= now)) return 0;
      return mutate((records) => {
        let removed = 0;
        for (const [code, record] of records) {
          if (record.expiresAt <= now) {
            records.delete(code);
            removed++;
          }
        }
        return { result: removed, changed: removed > 0 };
      });
    },
  };
}

function sameFile(snapshot: Snapshot, stats: Stats): boolean {
  return (
    snapshot.ino === stats.ino &&
    snapshot.dev === stats.dev &&
    snapshot.size === stats.size &&
    snapshot.mtimeMs === stats.mtimeMs &&
    snapshot.ctimeMs === stats.ctimeMs
  );
}

/** Makes the rename durable. Some platforms cannot open a directory for syncing; there it is skipped. */
async function syncDirectory(dir: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // EISDIR/EPERM on Windows and some file systems: the rename itself is still atomic.
  } finally {
    await handle?.close().catch(() => {});
  }
}
