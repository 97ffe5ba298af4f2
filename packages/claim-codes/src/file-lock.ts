import { randomBytes } from 'node:crypto';
import { link, open, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import type { Logger } from '@keyhold/core';
import { ClaimCodesError } from './errors.js';
import { systemErrorCode } from './system-error.js';

/** Options of {@link withFileLock}. */
export interface FileLockOptions {
  readonly lockPath: string;
  /** Give up (`ERR_STORE_LOCKED`) after waiting this long. */
  readonly lockTimeoutMs: number;
  /** A lock older than this is taken to be abandoned even when its owner cannot be checked. */
  readonly staleLockMs: number;
  readonly logger: Logger;
}

interface LockOwner {
  readonly pid: number;
  readonly hostname: string;
  readonly nonce: string;
}

// The nonces of the locks this process holds: a lock file naming this pid with another nonce was left by
// an earlier process that had the same pid (common in containers, where the daemon is often pid 1).
const heldNonces = new Set<string>();

/**
 * Runs `work` while holding an exclusive lock file, across processes, with no native dependency.
 *
 * The lock is a file that names its owner (pid, host, nonce), created atomically with its content by
 * hard-linking a private file to the lock path (or, where links are unsupported, `open(path, 'wx')`). A waiter retries with jittered exponential backoff up to
 * `lockTimeoutMs`. A lock is broken when its owner is a dead process on this host, or when it is older
 * than `staleLockMs`; breaking renames the file aside first and deletes it only if it is still the file
 * that was judged stale, so two waiters never both break one lock and then delete a fresh one.
 */
export async function withFileLock<T>(options: FileLockOptions, work: () => Promise<T>): Promise<T> {
  const nonce = await acquire(options);
  try {
    return await work();
  } finally {
    await release(options.lockPath, nonce);
  }
}

async function acquire(options: FileLockOptions): Promise<string> {
  const { lockPath, lockTimeoutMs } = options;
  const deadline = Date.now() + lockTimeoutMs;
  let delayMs = 2;
  for (;;) {
    const nonce = randomBytes(9).toString('base64url');
    if (await tryCreate(lockPath, nonce)) return nonce;
    if (await breakIfStale(options)) continue;
    if (Date.now() >= deadline) {
      throw new ClaimCodesError(
        'ERR_STORE_LOCKED',
        `The claim file is locked by another process (${lockPath}); gave up after ${lockTimeoutMs} ms.`,
      );
    }
    await sleep(delayMs * (0.5 + Math.random()));
    delayMs = Math.min(delayMs * 2, 100);
  }
}

/**
 * Creates the lock file with its owner already written: the owner goes into a private file first, which is
 * then hard-linked to the lock path (atomic, and failing with EEXIST when the lock exists). A crash can
 * therefore never leave an empty lock file that only its age could break. Where hard links are not
 * supported, falls back to `open(path, 'wx')` followed by the write.
 */
async function tryCreate(lockPath: string, nonce: string): Promise<boolean> {
  const owner = JSON.stringify({ pid: process.pid, hostname: hostname(), nonce } satisfies LockOwner);
  const staged = `${lockPath}.${process.pid}.${nonce}.acquire`;
  try {
    await writeFile(staged, owner, { mode: 0o600, flag: 'wx' });
  } catch (cause) {
    throw new ClaimCodesError('ERR_STORE_UNREADABLE', `Cannot create the lock file ${lockPath}.`, { cause });
  }
  try {
    await link(staged, lockPath);
    heldNonces.add(nonce);
    return true;
  } catch (error) {
    const code = systemErrorCode(error);
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') {
      throw new ClaimCodesError('ERR_STORE_UNREADABLE', `Cannot create the lock file ${lockPath}.`, {
        cause: error,
      });
    }
    return tryCreateWithoutLink(lockPath, nonce, owner);
  } finally {
    await unlink(staged).catch(() => {});
  }
}

async function tryCreateWithoutLink(lockPath: string, nonce: string, owner: string): Promise<boolean> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(lockPath, 'wx', 0o600);
  } catch (error) {
    if (systemErrorCode(error) === 'EEXIST') return false;
    throw new ClaimCodesError('ERR_STORE_UNREADABLE', `Cannot create the lock file ${lockPath}.`, {
      cause: error,
    });
  }
  heldNonces.add(nonce);
  try {
    await handle.writeFile(owner);
  } finally {
    await handle.close();
  }
  return true;
}

async function release(lockPath: string, nonce: string): Promise<void> {
  heldNonces.delete(nonce);
  const owner = await readOwner(lockPath);
  // Only our own lock is removed: if it was broken as stale and retaken, the file is someone else's now.
  if (owner?.nonce === nonce) await unlink(lockPath).catch(() => {});
}

/** Answers `true` when the lock is gone (broken or released), so the caller retries at once. */
async function breakIfStale(options: FileLockOptions): Promise<boolean> {
  const { lockPath, staleLockMs, logger } = options;
  let judged: Awaited<ReturnType<typeof stat>>;
  try {
    judged = await stat(lockPath);
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return true;
    throw new ClaimCodesError('ERR_STORE_UNREADABLE', `Cannot read the lock file ${lockPath}.`, {
      cause: error,
    });
  }
  const owner = await readOwner(lockPath);
  const ageMs = Date.now() - judged.mtimeMs;
  const deadOwner =
    owner !== undefined &&
    owner.hostname === hostname() &&
    (owner.pid === process.pid ? !heldNonces.has(owner.nonce) : !isProcessAlive(owner.pid));
  if (!deadOwner && ageMs <= staleLockMs) return false;

  const aside = `${lockPath}.${process.pid}.${randomBytes(6).toString('hex')}.stale`;
  try {
    await rename(lockPath, aside);
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return true;
    throw new ClaimCodesError('ERR_STORE_UNREADABLE', `Cannot break the lock file ${lockPath}.`, {
      cause: error,
    });
  }
  const moved = await stat(aside);
  if (moved.ino === judged.ino && moved.dev === judged.dev) {
    await unlink(aside).catch(() => {});
    logger.warn({ lockPath, ownerPid: owner?.pid, ageMs: Math.round(ageMs) }, 'stale claim-file lock broken');
    return true;
  }
  // Between the check and the rename another process took a fresh lock: put it back. `link` fails when
  // yet another process already holds the path, which leaves that one's lock in place.
  await link(aside, lockPath).catch(() => {});
  await unlink(aside).catch(() => {});
  return false;
}

async function readOwner(lockPath: string): Promise<LockOwner | undefined> {
  try {
    const parsed: unknown = JSON.parse(await readFile(lockPath, 'utf8'));
    if (
      typeof parsed === 'object' &&
      parsed !== null &&
      'pid' in parsed &&
      typeof parsed.pid === 'number' &&
      'hostname' in parsed &&
      typeof parsed.hostname === 'string' &&
      'nonce' in parsed &&
      typeof parsed.nonce === 'string'
    ) {
      return { pid: parsed.pid, hostname: parsed.hostname, nonce: parsed.nonce };
    }
    return undefined;
  } catch {
    // Missing, or created but not yet written: judged by age alone.
    return undefined;
  }
}

/** Whether a process with this pid runs on this host (EPERM: it runs, as another user). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return systemErrorCode(error) === 'EPERM';
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
