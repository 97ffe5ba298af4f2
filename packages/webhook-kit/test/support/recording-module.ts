import { fileURLToPath } from 'node:url';
import type { ToolModule } from '@keyhold/core';

/**
 * A module whose `handleEvent` records every call, and can be told to fail. Its source (this file) tags no
 * method, so only the `handle` prefix exposes it.
 */
export function recordingModule(toolModuleId = 'events'): ToolModule & {
  instance: object;
  calls: Record<string, unknown>[];
  failNext: () => void;
} {
  const calls: Record<string, unknown>[] = [];
  let fail = false;
  const instance = {
    async handleEvent(params: Record<string, unknown>): Promise<{ count: number }> {
      calls.push(params);
      if (fail) {
        fail = false;
        throw new Error('temporary outage');
      }
      return { count: calls.length };
    },
  };
  return {
    toolModuleId,
    displayName: `Recording ${toolModuleId}`,
    sourcePath: fileURLToPath(import.meta.url),
    instance,
    calls,
    failNext: () => {
      fail = true;
    },
  };
}
