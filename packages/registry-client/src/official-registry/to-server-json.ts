import type { McpProvider, McpProviderSetup } from '../mcp-provider.js';
import { optionCheck } from '../option-check.js';
import { type KeyholdMeta, keyholdMetaEntry } from './keyhold-meta.js';
import {
  type Converted,
  SERVER_JSON_SCHEMA_URL,
  type ServerJson,
  type ServerJsonArgument,
  type ServerJsonInput,
  type ServerJsonPackage,
  type ServerJsonRemote,
} from './server-json.js';
/** Options of {@link providerToServerJson}. */
export interface ProviderToServerJsonOptions {
  /** The reverse-DNS namespace the entry is published under, e.g. `io.github.acme`. */
  namespace: string;
  /** The entry's version (the official registry refuses ranges and `latest`). */
  version: string;
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

function setupVariables(setup: McpProviderSetup | undefined): ServerJsonInput[] {
  const match = setup ? /^export\s+([A-Z_][A-Z0-9_]*)=/.exec(setup.command) : null;
  if (!setup || !match) return [];
  return [{ name: match[1]!, description: setup.description, isRequired: setup.needsSetup, isSecret: true }];
}

function stdioToPackage(provider: McpProvider, unmapped: string[]): ServerJsonPackage | undefined {
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
 * Converts a Keyhold {@link McpProvider} to an official MCP Registry `server.json` entry. `stdio` becomes a
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
  provider: McpProvider,
  options: ProviderToServerJsonOptions,
): Converted<ServerJson> {
  if (!/^[a-zA-Z0-9.-]+$/.test(options.namespace)) {
    throw optionCheck.invalid('namespace must be reverse-DNS, e.g. io.github.acme');
  }
  if (options.version === '' || options.version === 'latest') {
    throw optionCheck.invalid('version must be a specific version');
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
      _meta: keyholdMetaEntry(meta),
    },
    unmapped,
  };
}
