import { vi } from 'vitest';

// The runtime-neutral checks (issue 28) each pretend to be a runtime without Node built-ins the same way:
// take `process.getBuiltinModule` away and reset the module registry, so the modules they import inside load
// afresh and pick their portable path. The original is always put back, or later tests would run portable too.

/**
 * Runs `check` with `process.getBuiltinModule` undefined and a fresh module registry; the modules it imports
 * dynamically load as they would on a runtime with no Node built-in.
 */
export async function withoutNodeBuiltins(check: () => Promise<void>): Promise<void> {
  const original = process.getBuiltinModule;
  vi.resetModules();
  (process as { getBuiltinModule?: unknown }).getBuiltinModule = undefined;
  try {
    await check();
  } finally {
    process.getBuiltinModule = original;
  }
}
