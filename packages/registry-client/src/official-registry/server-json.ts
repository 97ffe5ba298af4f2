import * as z from 'zod';

/**
 * The parts of an official MCP Registry `server.json` entry (schema 2025-12-11, camelCase) that Keyhold
 * reads and writes. Other fields pass through untouched in `_meta` and are otherwise ignored.
 */
export interface ServerJson {
  readonly $schema?: string;
  readonly name: string;
  readonly description: string;
  readonly version: string;
  readonly title?: string;
  readonly websiteUrl?: string;
  readonly repository?: { readonly url: string; readonly source?: string; readonly subfolder?: string };
  readonly packages?: readonly ServerJsonPackage[];
  readonly remotes?: readonly ServerJsonRemote[];
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** One `packages[]` entry of a {@link ServerJson}. */
export interface ServerJsonPackage {
  readonly registryType: string;
  readonly identifier: string;
  readonly version?: string;
  readonly runtimeHint?: string;
  readonly transport: { readonly type: string; readonly url?: string };
  readonly runtimeArguments?: readonly ServerJsonArgument[];
  readonly packageArguments?: readonly ServerJsonArgument[];
  readonly environmentVariables?: readonly ServerJsonInput[];
}

/** One `remotes[]` entry of a {@link ServerJson}. */
export interface ServerJsonRemote {
  readonly type: string;
  readonly url: string;
  readonly headers?: readonly ServerJsonInput[];
}

/** A package or runtime argument of a {@link ServerJsonPackage}. */
export interface ServerJsonArgument {
  readonly type: 'positional' | 'named';
  readonly name?: string;
  readonly value?: string;
  readonly valueHint?: string;
  readonly description?: string;
  readonly isRequired?: boolean;
}

/** An environment variable or header a {@link ServerJson} entry asks the user for. */
export interface ServerJsonInput {
  readonly name: string;
  readonly description?: string;
  readonly isRequired?: boolean;
  readonly isSecret?: boolean;
  readonly value?: string;
}

/** The schema URL written into converted entries. */
export const SERVER_JSON_SCHEMA_URL: string =
  'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

// Each schema is typed by its interface above, so a field added to one and not the other fails to compile
// instead of being cast away.
const inputSchema: z.ZodType<ServerJsonInput> = z.object({
  name: z.string(),
  description: z.string().optional(),
  isRequired: z.boolean().optional(),
  isSecret: z.boolean().optional(),
  value: z.string().optional(),
});
const argumentSchema: z.ZodType<ServerJsonArgument> = z.object({
  type: z.enum(['positional', 'named']),
  name: z.string().optional(),
  value: z.string().optional(),
  valueHint: z.string().optional(),
  description: z.string().optional(),
  isRequired: z.boolean().optional(),
});
const packageSchema: z.ZodType<ServerJsonPackage> = z.object({
  registryType: z.string(),
  identifier: z.string(),
  version: z.string().optional(),
  runtimeHint: z.string().optional(),
  transport: z.object({ type: z.string(), url: z.string().optional() }),
  runtimeArguments: z.array(argumentSchema).optional(),
  packageArguments: z.array(argumentSchema).optional(),
  environmentVariables: z.array(inputSchema).optional(),
});
const remoteSchema: z.ZodType<ServerJsonRemote> = z.object({
  type: z.string(),
  url: z.string(),
  headers: z.array(inputSchema).optional(),
});

/** Reads a {@link ServerJson} entry: the fields Keyhold uses are checked, others are dropped. */
export const serverJsonSchema: z.ZodType<ServerJson> = z.object({
  $schema: z.string().optional(),
  name: z.string().min(1),
  description: z.string(),
  version: z.string(),
  title: z.string().optional(),
  websiteUrl: z.string().optional(),
  repository: z
    .object({ url: z.string(), source: z.string().optional(), subfolder: z.string().optional() })
    .optional(),
  packages: z.array(packageSchema).optional(),
  remotes: z.array(remoteSchema).optional(),
  _meta: z.record(z.string(), z.unknown()).optional(),
});

/**
 * A conversion result: the converted value, and a sentence for every field that could not be mapped.
 */
export interface Converted<T> {
  readonly value: T;
  readonly unmapped: readonly string[];
}
