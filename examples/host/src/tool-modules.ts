import { join } from 'node:path';
import type { ToolModule } from '@keyhold/claim-codes/mcp';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
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

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

/**
 * The MCP view of the modules. `who_am_i` is passed in by the caller because it needs the token broker.
 */
export function mcpToolModules(
  hostRoot: string,
  instances: ToolInstances,
  extraActivityTools: ToolModule['tools'] = [],
): ToolModule[] {
  const paths = toolSourcePaths(hostRoot);
  return [
    {
      id: 'notes',
      name: 'Notes',
      sourcePath: paths.notes,
      tools: [
        {
          name: 'add_note',
          description: 'Adds a note.',
          inputSchema: z.object({ text: z.string().min(1).max(10_000) }),
          handler: (args) => {
            const { count } = instances.notes.add(String(args['text']));
            return text(`Saved. ${count} note(s) in total.`);
          },
        },
        {
          name: 'list_notes',
          description: 'Lists the notes, including those received by webhook.',
          handler: () => text(JSON.stringify(instances.notes.list())),
        },
      ],
    },
    {
      id: 'activity',
      name: 'Activity',
      sourcePath: paths.activity,
      tools: [
        {
          name: 'recent_pushes',
          description: 'Lists the push events received by the github/push webhook.',
          handler: () => text(JSON.stringify(instances.activity.recentPushes())),
        },
        ...extraActivityTools,
      ],
    },
  ];
}
