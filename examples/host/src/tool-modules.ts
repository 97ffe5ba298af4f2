import { join } from 'node:path';
import { defineTool, type McpToolModule } from '@keyhold/mcp';
import * as z from 'zod';
import { Notes } from '../tools/workspace-a/notes.js';
import { Activity } from '../tools/workspace-b/activity.js';

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

export function createToolInstances(): ToolInstances {
  return { notes: new Notes(), activity: new Activity() };
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
          handler: ({ text: note }) => {
            const { count } = instances.notes.add(note);
            return text(`Saved. ${count} note(s) in total.`);
          },
        }),
        defineTool({
          name: 'list_notes',
          description: 'Lists the notes, including those received by webhook.',
          handler: () => text(JSON.stringify(instances.notes.list())),
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
          handler: () => text(JSON.stringify(instances.activity.recentPushes())),
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
