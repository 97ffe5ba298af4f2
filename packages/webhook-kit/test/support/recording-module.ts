import type { ToolModule } from '../../src/discovery.js';

/** A module without a source file whose `handleEvent` records every call, and can be told to fail. */
export function recordingModule(name = 'events'): ToolModule & {
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
    id: `mod_${name}`,
    name,
    instance,
    calls,
    failNext: () => {
      fail = true;
    },
  };
}
