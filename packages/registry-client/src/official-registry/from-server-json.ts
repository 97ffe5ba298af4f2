import type { McpProvider, McpProviderSetup } from '../mcp-provider.js';
import { parseProvider } from '../mcp-provider.js';
import { keyholdMetaOf } from './keyhold-meta.js';
import {
  type Converted,
  type ServerJsonArgument,
  type ServerJsonInput,
  type ServerJsonPackage,
  serverJsonSchema,
} from './server-json.js';

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

function setupFrom(variables: readonly ServerJsonInput[]): McpProviderSetup | undefined {
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
 * Converts an official MCP Registry `server.json` entry to a Keyhold {@link McpProvider}. The first stdio
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
  | ({ readonly ok: true } & Converted<McpProvider>)
  | { readonly ok: false; readonly name?: string; readonly reason: string } {
  const parsed = serverJsonSchema.safeParse(data);
  if (!parsed.success) return { ok: false, reason: 'not a server.json entry' };
  const entry = parsed.data;
  const unmapped: string[] = [];
  const meta = keyholdMetaOf(entry._meta);

  const shortName = entry.name.slice(entry.name.lastIndexOf('/') + 1);
  const id =
    meta.id ??
    shortName
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[^a-z0-9]+/, '');

  let stdio: McpProvider['stdio'] = meta.launch
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

  let http: McpProvider['http'];
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
