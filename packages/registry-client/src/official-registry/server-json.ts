// Keyhold's mapping to and from the official MCP Registry's server.json (not exported: no host or CLI calls it
// yet). What cannot map natively: the recommended transport, the docs link, notes, the setup step, the exact
// launch line (`-y`, `@latest`) and the Keyhold id have no server.json field; they travel under
// `_meta["io.modelcontextprotocol.registry/publisher-provided"]["dev.keyhold/provider"]`, so a round trip is
// lossless, and every such field is listed in `unmapped`. Launchers other than npx, uvx and docker, `nuget` and
// `mcpb` packages, non-stdio packages, remote URL variables and headers other than `Authorization` do not map.
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
  description: z.string().exactOptional(),
  isRequired: z.boolean().exactOptional(),
  isSecret: z.boolean().exactOptional(),
  value: z.string().exactOptional(),
});
const argumentSchema: z.ZodType<ServerJsonArgument> = z.object({
  type: z.enum(['positional', 'named']),
  name: z.string().exactOptional(),
  value: z.string().exactOptional(),
  valueHint: z.string().exactOptional(),
  description: z.string().exactOptional(),
  isRequired: z.boolean().exactOptional(),
});
const packageSchema: z.ZodType<ServerJsonPackage> = z.object({
  registryType: z.string(),
  identifier: z.string(),
  version: z.string().exactOptional(),
  runtimeHint: z.string().exactOptional(),
  transport: z.object({ type: z.string(), url: z.string().exactOptional() }),
  runtimeArguments: z.array(argumentSchema).exactOptional(),
  packageArguments: z.array(argumentSchema).exactOptional(),
  environmentVariables: z.array(inputSchema).exactOptional(),
});
const remoteSchema: z.ZodType<ServerJsonRemote> = z.object({
  type: z.string(),
  url: z.string(),
  headers: z.array(inputSchema).exactOptional(),
});

/** Reads a {@link ServerJson} entry: the fields Keyhold uses are checked, others are dropped. */
export const serverJsonSchema: z.ZodType<ServerJson> = z.object({
  $schema: z.string().exactOptional(),
  name: z.string().min(1),
  description: z.string(),
  version: z.string(),
  title: z.string().exactOptional(),
  websiteUrl: z.string().exactOptional(),
  repository: z
    .object({ url: z.string(), source: z.string().exactOptional(), subfolder: z.string().exactOptional() })
    .exactOptional(),
  packages: z.array(packageSchema).exactOptional(),
  remotes: z.array(remoteSchema).exactOptional(),
  _meta: z.record(z.string(), z.unknown()).exactOptional(),
});

/**
 * A conversion result: the converted value, and a sentence for every field that could not be mapped.
 */
export interface Converted<T> {
  readonly value: T;
  readonly unmapped: readonly string[];
}
