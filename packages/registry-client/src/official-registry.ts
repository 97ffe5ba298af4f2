import * as z from 'zod';
import { RegistryError } from './errors.js';
import type { HttpAuth, Provider, ProviderMap, ProviderSetup } from './provider.js';
import { parseProvider } from './provider.js';

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

const PUBLISHER_META = 'io.modelcontextprotocol.registry/publisher-provided';
const OFFICIAL_META = 'io.modelcontextprotocol.registry/official';
// Keyhold's own fields travel under the publisher-provided metadata, so a round trip loses nothing.
const KEYHOLD_META = 'dev.keyhold/provider';

interface KeyholdMeta {
  id?: string;
  description?: string;
  recommended?: 'stdio' | 'http';
  auth?: HttpAuth;
  docs?: string;
  notes?: string;
  setup?: ProviderSetup;
  launch?: { command: string; args: string[] };
}

/** Options of {@link providerToServerJson}. */
export interface ProviderToServerJsonOptions {
  /** The reverse-DNS namespace the entry is published under, e.g. `io.github.acme`. */
  namespace: string;
  /** The entry's version (the official registry refuses ranges and `latest`). */
  version: string;
}

/**
 * A conversion result: the converted value, and a sentence for every field that could not be mapped.
 */
export interface Converted<T> {
  readonly value: T;
  readonly unmapped: readonly string[];
}

const VALUE_FLAGS = new Set([
  '-e',
  '--env',
  '-v',
  '--volume',
  '--name',
  '-p',
  '--publish',
  '--network',
  '-w',
  '--workdir',
]);

function splitNpmSpec(spec: string): { identifier: string; version?: string } {
  const at = spec.lastIndexOf('@');
  if (at <= 0) return { identifier: spec };
  const version = spec.slice(at + 1);
  return { identifier: spec.slice(0, at), ...(version !== '' && version !== 'latest' ? { version } : {}) };
}

function splitPypiSpec(spec: string): { identifier: string; version?: string } {
  const match = /^([^@=]+)(?:@|==)(.+)$/.exec(spec);
  if (!match) return { identifier: spec };
  const version = match[2]!;
  return { identifier: match[1]!, ...(version !== 'latest' ? { version } : {}) };
}

function positional(values: readonly string[]): ServerJsonArgument[] {
  return values.map((value) => {
    const placeholder = /^<(.+)>$/.exec(value);
    return placeholder
      ? { type: 'positional', valueHint: placeholder[1]!, isRequired: true }
      : { type: 'positional', value };
  });
}

function setupVariables(setup: ProviderSetup | undefined): ServerJsonInput[] {
  const match = setup ? /^export\s+([A-Z_][A-Z0-9_]*)=/.exec(setup.command) : null;
  if (!setup || !match) return [];
  return [{ name: match[1]!, description: setup.description, isRequired: setup.needsSetup, isSecret: true }];
}

function stdioToPackage(provider: Provider, unmapped: string[]): ServerJsonPackage | undefined {
  const stdio = provider.stdio!;
  const args = [...stdio.args];
  const env = setupVariables(stdio.setup);
  if (stdio.command === 'npx' || stdio.command === 'uvx') {
    const at = args.findIndex((arg) => !arg.startsWith('-'));
    if (at === -1) {
      unmapped.push(`stdio: no package name in "${stdio.command} ${args.join(' ')}"`);
      return undefined;
    }
    const spec = stdio.command === 'npx' ? splitNpmSpec(args[at]!) : splitPypiSpec(args[at]!);
    if (spec.version === undefined)
      unmapped.push('stdio: the package version is not pinned, so none is given');
    return {
      registryType: stdio.command === 'npx' ? 'npm' : 'pypi',
      identifier: spec.identifier,
      ...(spec.version !== undefined ? { version: spec.version } : {}),
      runtimeHint: stdio.command,
      transport: { type: 'stdio' },
      ...(args.length > at + 1 ? { packageArguments: positional(args.slice(at + 1)) } : {}),
      ...(env.length > 0 ? { environmentVariables: env } : {}),
    };
  }
  if (stdio.command === 'docker' && args[0] === 'run') {
    const runtime: string[] = [];
    const variables: ServerJsonInput[] = [...env];
    let image: string | undefined;
    let i = 1;
    for (; i < args.length; i++) {
      const arg = args[i]!;
      if (VALUE_FLAGS.has(arg) && i + 1 < args.length) {
        const value = args[++i]!;
        if ((arg === '-e' || arg === '--env') && !value.includes('=')) {
          if (!variables.some((v) => v.name === value)) variables.push({ name: value, isSecret: true });
        } else runtime.push(arg, value);
      } else if (arg.startsWith('-')) runtime.push(arg);
      else {
        image = arg;
        break;
      }
    }
    if (image === undefined) {
      unmapped.push('stdio: no image in the docker command');
      return undefined;
    }
    const rest = args.slice(i + 1);
    return {
      registryType: 'oci',
      identifier: image,
      runtimeHint: 'docker',
      transport: { type: 'stdio' },
      ...(runtime.filter((a) => a !== '-i' && a !== '--rm').length > 0
        ? { runtimeArguments: positional(runtime.filter((a) => a !== '-i' && a !== '--rm')) }
        : {}),
      ...(rest.length > 0 ? { packageArguments: positional(rest) } : {}),
      ...(variables.length > 0 ? { environmentVariables: variables } : {}),
    };
  }
  unmapped.push(
    `stdio: "${stdio.command}" is not a package runner (npx, uvx, docker run) the registry can describe`,
  );
  return undefined;
}

/**
 * Converts a Keyhold {@link Provider} to an official MCP Registry `server.json` entry. `stdio` becomes a
 * `packages[]` entry when it runs through `npx` (npm), `uvx` (PyPI) or `docker run` (OCI); `http` becomes a
 * `remotes[]` entry of type `streamable-http`, with an `Authorization` header declared for `bearer` and
 * `basic`. What server.json has no field for (the recommended transport, the docs link, notes, the setup
 * step, the id) travels in `_meta` under the publisher-provided key, so {@link serverJsonToProvider}
 * restores it; every field that could not be expressed natively is listed in `unmapped`.
 *
 * @example
 * ```ts
 * const { value, unmapped } = providerToServerJson(provider, { namespace: 'io.github.acme', version: '1.0.0' });
 * ```
 */
export function providerToServerJson(
  provider: Provider,
  options: ProviderToServerJsonOptions,
): Converted<ServerJson> {
  if (!/^[a-zA-Z0-9.-]+$/.test(options.namespace)) {
    throw new RegistryError('ERR_INVALID_OPTIONS', 'namespace must be reverse-DNS, e.g. io.github.acme');
  }
  if (options.version === '' || options.version === 'latest') {
    throw new RegistryError('ERR_INVALID_OPTIONS', 'version must be a specific version');
  }
  const unmapped: string[] = [];
  const packages: ServerJsonPackage[] = [];
  const remotes: ServerJsonRemote[] = [];
  if (provider.stdio) {
    const pkg = stdioToPackage(provider, unmapped);
    if (pkg) packages.push(pkg);
    if (provider.stdio.setup) unmapped.push('stdio.setup: server.json has no setup step (kept in _meta)');
  }
  if (provider.http) {
    const { url, auth } = provider.http;
    remotes.push({
      type: 'streamable-http',
      url,
      ...(auth === 'oauth'
        ? {}
        : {
            headers: [
              {
                name: 'Authorization',
                description: auth === 'bearer' ? 'Bearer <token>' : 'Basic <base64 of user:password>',
                isRequired: true,
                isSecret: true,
              },
            ],
          }),
    });
    unmapped.push('http.docs: server.json has no documentation link (kept in _meta)');
    if (provider.http.notes !== undefined)
      unmapped.push('http.notes: server.json has no notes (kept in _meta)');
  }
  unmapped.push('recommended: server.json has no preferred transport (kept in _meta)');
  let description = provider.description;
  if (description.length > 100) {
    description = `${description.slice(0, 99)}…`;
    unmapped.push(
      'description: shortened to the 100 characters the official registry accepts (full text in _meta)',
    );
  }
  const meta: KeyholdMeta = {
    id: provider.id,
    ...(description !== provider.description ? { description: provider.description } : {}),
    recommended: provider.recommended,
    ...(provider.http ? { auth: provider.http.auth, docs: provider.http.docs } : {}),
    ...(provider.http?.notes !== undefined ? { notes: provider.http.notes } : {}),
    ...(provider.stdio?.setup ? { setup: provider.stdio.setup } : {}),
    // The exact launch line: package coordinates alone cannot say "-y" or "@latest".
    ...(provider.stdio
      ? { launch: { command: provider.stdio.command, args: [...provider.stdio.args] } }
      : {}),
  };
  return {
    value: {
      $schema: SERVER_JSON_SCHEMA_URL,
      name: `${options.namespace}/${provider.id}`,
      title: provider.name,
      description,
      version: options.version,
      websiteUrl: provider.website,
      ...(packages.length > 0 ? { packages } : {}),
      ...(remotes.length > 0 ? { remotes } : {}),
      _meta: { [PUBLISHER_META]: { [KEYHOLD_META]: meta } },
    },
    unmapped,
  };
}

const inputSchema = z.object({
  name: z.string(),
  description: z.string().optional(),
  isRequired: z.boolean().optional(),
  isSecret: z.boolean().optional(),
  value: z.string().optional(),
});
const argumentSchema = z.object({
  type: z.enum(['positional', 'named']),
  name: z.string().optional(),
  value: z.string().optional(),
  valueHint: z.string().optional(),
  description: z.string().optional(),
  isRequired: z.boolean().optional(),
});
const serverJsonSchema = z.object({
  $schema: z.string().optional(),
  name: z.string().min(1),
  description: z.string(),
  version: z.string(),
  title: z.string().optional(),
  websiteUrl: z.string().optional(),
  repository: z
    .object({ url: z.string(), source: z.string().optional(), subfolder: z.string().optional() })
    .optional(),
  packages: z
    .array(
      z.object({
        registryType: z.string(),
        identifier: z.string(),
        version: z.string().optional(),
        runtimeHint: z.string().optional(),
        transport: z.object({ type: z.string(), url: z.string().optional() }),
        runtimeArguments: z.array(argumentSchema).optional(),
        packageArguments: z.array(argumentSchema).optional(),
        environmentVariables: z.array(inputSchema).optional(),
      }),
    )
    .optional(),
  remotes: z
    .array(z.object({ type: z.string(), url: z.string(), headers: z.array(inputSchema).optional() }))
    .optional(),
  _meta: z.record(z.string(), z.unknown()).optional(),
});

const keyholdMetaSchema = z.object({
  id: z.string().optional(),
  description: z.string().optional(),
  recommended: z.enum(['stdio', 'http']).optional(),
  auth: z.enum(['bearer', 'oauth', 'basic']).optional(),
  docs: z.string().optional(),
  notes: z.string().optional(),
  setup: z.object({ description: z.string(), command: z.string(), needsSetup: z.boolean() }).optional(),
  launch: z.object({ command: z.string(), args: z.array(z.string()) }).optional(),
});

function argumentValues(args: readonly ServerJsonArgument[] | undefined): string[] {
  const out: string[] = [];
  for (const arg of args ?? []) {
    const value = arg.value ?? (arg.valueHint !== undefined ? `<${arg.valueHint}>` : undefined);
    if (arg.type === 'named' && arg.name !== undefined) out.push(arg.name);
    if (value !== undefined) out.push(value);
  }
  return out;
}

function packageToStdio(
  pkg: ServerJsonPackage,
  unmapped: string[],
): { command: string; args: string[]; variables: readonly ServerJsonInput[] } | undefined {
  const rest = argumentValues(pkg.packageArguments);
  const variables = pkg.environmentVariables ?? [];
  switch (pkg.registryType) {
    case 'npm':
      return {
        command: 'npx',
        args: ['-y', pkg.version ? `${pkg.identifier}@${pkg.version}` : pkg.identifier, ...rest],
        variables,
      };
    case 'pypi':
      return {
        command: 'uvx',
        args: [pkg.version ? `${pkg.identifier}@${pkg.version}` : pkg.identifier, ...rest],
        variables,
      };
    case 'oci': {
      const image =
        pkg.version && !pkg.identifier.includes(':') ? `${pkg.identifier}:${pkg.version}` : pkg.identifier;
      const env = variables.flatMap((v) => ['-e', v.name]);
      return {
        command: 'docker',
        args: ['run', '-i', '--rm', ...argumentValues(pkg.runtimeArguments), ...env, image, ...rest],
        variables,
      };
    }
    default:
      unmapped.push(`packages: registryType "${pkg.registryType}" has no launch command Keyhold knows`);
      return undefined;
  }
}

function setupFrom(variables: readonly ServerJsonInput[]): ProviderSetup | undefined {
  const needed = variables.filter((v) => v.value === undefined);
  if (needed.length === 0) return undefined;
  const names = needed.map((v) => v.name);
  return {
    description: `Set ${names.join(', ')}${needed[0]!.description ? ` (${needed.map((v) => v.description ?? v.name).join('; ')})` : ''}.`,
    command: `export ${names.map((name) => `${name}=<${name.toLowerCase()}>`).join(' ')}`,
    needsSetup: needed.some((v) => v.isRequired === true),
  };
}

function isHttpUrl(value: string | undefined): value is string {
  if (value === undefined) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/**
 * Converts an official MCP Registry `server.json` entry to a Keyhold {@link Provider}. The first stdio
 * package of a known registry type (npm → `npx -y`, PyPI → `uvx`, OCI → `docker run -i --rm`) becomes
 * `stdio` (its environment variables become the setup step); the first `streamable-http` (else `sse`)
 * remote without URL variables becomes `http` (`bearer` when it declares an `Authorization` header, else
 * `oauth`). Keyhold fields kept in `_meta` by {@link providerToServerJson} win. Answers `ok: false` with
 * the reason when the entry offers neither transport or has no usable website.
 *
 * @example
 * ```ts
 * const converted = serverJsonToProvider(entry.server);
 * if (converted.ok) providers[converted.value.id] = converted.value;
 * ```
 */
export function serverJsonToProvider(
  data: unknown,
):
  | ({ readonly ok: true } & Converted<Provider>)
  | { readonly ok: false; readonly name?: string; readonly reason: string } {
  const parsed = serverJsonSchema.safeParse(data);
  if (!parsed.success) return { ok: false, reason: 'not a server.json entry' };
  const entry = parsed.data as ServerJson;
  const unmapped: string[] = [];
  const publisher = entry._meta?.[PUBLISHER_META];
  const metaResult = keyholdMetaSchema.safeParse(
    typeof publisher === 'object' && publisher !== null
      ? (publisher as Record<string, unknown>)[KEYHOLD_META]
      : undefined,
  );
  const meta: KeyholdMeta = metaResult.success ? metaResult.data : {};

  const shortName = entry.name.slice(entry.name.lastIndexOf('/') + 1);
  const id =
    meta.id ??
    shortName
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[^a-z0-9]+/, '');

  let stdio: Provider['stdio'] = meta.launch
    ? { command: meta.launch.command, args: meta.launch.args, ...(meta.setup ? { setup: meta.setup } : {}) }
    : undefined;
  for (const pkg of stdio ? [] : (entry.packages ?? [])) {
    if (pkg.transport.type !== 'stdio') {
      unmapped.push(
        `packages: "${pkg.identifier}" uses transport ${pkg.transport.type}, which needs a local port`,
      );
      continue;
    }
    const launch = packageToStdio(pkg, unmapped);
    if (!launch) continue;
    const setup = meta.setup ?? setupFrom(launch.variables);
    stdio = { command: launch.command, args: launch.args, ...(setup ? { setup } : {}) };
    break;
  }

  let http: Provider['http'];
  const remotes = [...(entry.remotes ?? [])].sort(
    (a, b) => Number(b.type === 'streamable-http') - Number(a.type === 'streamable-http'),
  );
  for (const remote of remotes) {
    if (remote.url.includes('{')) {
      unmapped.push(`remotes: ${remote.url} has URL variables the user must fill in`);
      continue;
    }
    if (!isHttpUrl(remote.url)) continue;
    const declaresAuth = remote.headers?.some((h) => h.name.toLowerCase() === 'authorization') ?? false;
    const docs = [meta.docs, entry.websiteUrl, entry.repository?.url, remote.url].find(isHttpUrl)!;
    http = {
      url: remote.url,
      auth: meta.auth ?? (declaresAuth ? 'bearer' : 'oauth'),
      docs,
      ...(meta.notes !== undefined
        ? { notes: meta.notes }
        : remote.type === 'sse'
          ? { notes: 'SSE transport.' }
          : {}),
    };
    if (remote.headers?.some((h) => h.name.toLowerCase() !== 'authorization')) {
      unmapped.push('remotes.headers: only Authorization maps to an auth type; other headers are dropped');
    }
    break;
  }

  if (!stdio && !http)
    return { ok: false, name: entry.name, reason: 'no stdio package or remote Keyhold can use' };
  const website = [entry.websiteUrl, entry.repository?.url, http?.docs].find(isHttpUrl);
  if (!website) return { ok: false, name: entry.name, reason: 'no website or repository URL' };
  const recommended =
    meta.recommended && (meta.recommended === 'http' ? http : stdio)
      ? meta.recommended
      : http
        ? 'http'
        : 'stdio';
  const checked = parseProvider({
    id,
    name: entry.title ?? shortName,
    description:
      meta.description ?? (entry.description === '' ? (entry.title ?? shortName) : entry.description),
    website,
    recommended,
    ...(stdio ? { stdio } : {}),
    ...(http ? { http } : {}),
  });
  if (!checked.ok) return { ok: false, name: entry.name, reason: checked.message };
  return { ok: true, value: checked.provider, unmapped };
}

/**
 * The outcome of {@link importOfficialServerList}: the providers converted from one page, the entries that
 * were skipped and why, and the cursor of the next page when there is one.
 */
export interface OfficialImport {
  readonly providers: ProviderMap;
  readonly skipped: readonly { readonly name: string; readonly reason: string }[];
  readonly nextCursor?: string;
}

const listSchema = z.object({
  servers: z.array(z.object({ server: z.unknown(), _meta: z.record(z.string(), z.unknown()).optional() })),
  metadata: z.object({ nextCursor: z.string().optional(), count: z.number().optional() }).optional(),
});

/**
 * Reads one page of the official registry's `GET /v0.1/servers` answer (`{ servers: [{ server, _meta }],
 * metadata: { nextCursor, count } }`) into providers. Entries the official metadata marks as not `active` or
 * not the latest version are skipped, as are entries {@link serverJsonToProvider} cannot convert and later
 * duplicates of an id. Throws {@link RegistryError} `ERR_INVALID_PROVIDERS` when the page itself has the
 * wrong shape.
 *
 * @example
 * ```ts
 * const page = await (await fetch('https://registry.modelcontextprotocol.io/v0.1/servers?limit=100')).json();
 * const { providers, skipped, nextCursor } = importOfficialServerList(page);
 * ```
 */
export function importOfficialServerList(page: unknown): OfficialImport {
  const parsed = listSchema.safeParse(page);
  if (!parsed.success) {
    throw new RegistryError(
      'ERR_INVALID_PROVIDERS',
      'not a /v0.1/servers page: expected { servers: [{ server }] }',
    );
  }
  const providers: Record<string, Provider> = Object.create(null);
  const skipped: { name: string; reason: string }[] = [];
  for (const item of parsed.data.servers) {
    const server = item.server as { name?: unknown } | undefined;
    const name = typeof server?.name === 'string' ? server.name : '(unnamed)';
    const official = item._meta?.[OFFICIAL_META] as { status?: unknown; isLatest?: unknown } | undefined;
    if (official?.status !== undefined && official.status !== 'active') {
      skipped.push({ name, reason: `status is ${String(official.status)}` });
      continue;
    }
    if (official?.isLatest === false) {
      skipped.push({ name, reason: 'not the latest version' });
      continue;
    }
    const converted = serverJsonToProvider(item.server);
    if (!converted.ok) {
      skipped.push({ name, reason: converted.reason });
      continue;
    }
    if (providers[converted.value.id]) {
      skipped.push({ name, reason: `another entry already uses the id "${converted.value.id}"` });
      continue;
    }
    providers[converted.value.id] = converted.value;
  }
  const nextCursor = parsed.data.metadata?.nextCursor;
  return { providers, skipped, ...(nextCursor ? { nextCursor } : {}) };
}
