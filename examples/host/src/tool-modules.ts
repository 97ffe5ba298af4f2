import { join } from 'node:path';
import { defineTool, type McpToolModule } from '@keyhold/mcp';
import * as z from 'zod';
import { type Note, Notes } from '../tools/workspace-a/notes.js';
import { Activity, type Push } from '../tools/workspace-b/activity.js';
import type { HostRecords } from './host-state.js';

/** The live instances of the host's tool modules, shared by MCP tools and webhooks. */
export interface ToolInstances {
  readonly notes: Notes;
  readonly activity: Activity;
}

/** Where each module's source file lives: what claim scopes and webhook doc comments are read from. */
export function toolSourcePaths(hostRoot: string): { notes: string; activity: string } {
  return {
    notes: join(hostRoot, 'tools/workspace-a/notes.ts'),
    activity: join(hostRoot, 'tools/workspace-b/activity.ts'),
  };
}

/** The tool modules, their records kept in the host's store (so every instance answers alike). */
export function createToolInstances(records: HostRecords): ToolInstances {
  return {
    notes: new Notes({
      append: (note) => records.append('notes', note),
      list: async () => (await records.list('notes')) as Note[],
    }),
    activity: new Activity({
      append: (push) => records.append('activity.pushes', push),
      list: async () => (await records.list('activity.pushes')) as Push[],
    }),
  };
}

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

/**
 * The host's tool modules, in the one shape every Keyhold package takes: MCP serves their `tools`, claim
 * codes scope them by `sourcePath`, webhooks call `instance` under `toolModuleId`, and the token broker
 * keeps each module's grants apart.
 */
export function hostToolModules(hostRoot: string, instances: ToolInstances): McpToolModule[] {
  const paths = toolSourcePaths(hostRoot);
  return [
    {
      toolModuleId: 'notes',
      displayName: 'Notes',
      sourcePath: paths.notes,
      instance: instances.notes,
      tools: [
        defineTool({
          name: 'add_note',
          description: 'Adds a note.',
          inputSchema: z.object({ text: z.string().min(1).max(10_000) }),
          handler: async ({ text: note }) => {
            const { count } = await instances.notes.add(note);
            return text(`Saved. ${count} note(s) in total.`);
          },
        }),
        defineTool({
          name: 'list_notes',
          description: 'Lists the notes, including those received by webhook.',
          handler: async () => text(JSON.stringify(await instances.notes.list())),
        }),
      ],
    },
    {
      toolModuleId: 'activity',
      displayName: 'Activity',
      sourcePath: paths.activity,
      instance: instances.activity,
      tools: [
        defineTool({
          name: 'recent_pushes',
          description: 'Lists the push events received by the github/push webhook.',
          handler: async () => text(JSON.stringify(await instances.activity.recentPushes())),
        }),
        defineTool({
          name: 'who_am_i',
          description:
            'Connects your demo-provider account (a login link the first time) and reports who you are there.',
          // The module's method yields an OAuth ask; the endpoint answers it with the user's token, or shows
          // the client a login link and the client retries once the user has connected.
          async *handler() {
            return text(yield* instances.activity.whoAmI());
          },
        }),
      ],
    },
  ];
}
