function isBusy(error: unknown): boolean {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/**
 * Runs an idempotent start-up step (opening in WAL mode, a migration) again while another process holds
 * the database, for at most `waitMs`. SQLite answers some start-up races with SQLITE_BUSY at once instead of
 * waiting out `busy_timeout` (a read snapshot made stale by another process's commit, a WAL switch racing
 * another opener), so instances started together on one file would otherwise fail to start. Start-up only:
 * the sleep blocks the thread.
 */
export function retryWhileBusy<T>(waitMs: number, step: () => T): T {
  const deadline = Date.now() + waitMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let attempt = 1; ; attempt++) {
    try {
      return step();
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) throw error;
      Atomics.wait(pause, 0, 0, Math.min(20 * attempt, 200));
    }
  }
}
