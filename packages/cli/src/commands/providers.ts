import { parseArgs } from 'node:util';
import type { Logger } from '@keyhold/core';
import {
  createRegistryClient,
  type McpProvider,
  type RegistryClient,
  RegistryError,
} from '@keyhold/registry-client';
import manifest from '../../package.json' with { type: 'json' };
import { type CliIo, EXIT, type ExitCode } from '../io.js';
import type { Command } from '../main.js';
import { jsonText, printable, terminalText } from '../terminal.js';

/** The environment variable that names the registry when `--registry-url` is not given. */
export const REGISTRY_URL_ENV = 'KEYHOLD_REGISTRY_URL';

const USAGE = `Usage: keyhold providers <list | get <id> | search <query> | add <id>> [options]

Subcommands:
  list            list every provider
  get <id>        show one provider
  search <query>  find providers by id, name or description
  add <id>        print the MCP client configuration block for a provider

Options:
  --registry-url <url>  registry base URL (default: $${REGISTRY_URL_ENV}; without either, the local registry)
  --json                machine-readable output on stdout
  --debug               log why the local registry was used, on stderr
  -h, --help            show this help

Exit codes: 0 success, 1 provider unknown everywhere, 2 usage error.
`;

/** Options of {@link createProvidersCommand}; tests and embedding programs inject these. */
export interface ProvidersCommandOptions {
  /** The `fetch` the registry client uses (default: the global one). */
  fetch?: typeof fetch;
  /** Connect timeout in ms (default 5000). */
  connectTimeoutMs?: number;
  /** Read timeout in ms (default 5000). */
  readTimeoutMs?: number;
}

/** The `mcpServers` entry most MCP clients (Claude, Cursor, VS Code, …) read for one server. */
type McpServerEntry = { command: string; args: string[] } | { type: 'http'; url: string };

function stderrLogger(io: CliIo): Logger {
  const write = (level: string) => (fields: Record<string, unknown>, message?: string) => {
    io.stderr(`${level}: ${printable(message ?? '')} ${jsonText(fields, 0)}\n`);
  };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

function json(io: CliIo, value: unknown): void {
  io.stdout(`${jsonText(value)}\n`);
}

function note(io: CliIo, result: object): void {
  if ('note' in result && typeof result.note === 'string') io.stderr(`Note: ${printable(result.note)}\n`);
}

// Every field a registry sent is shown through printable(): one field stays on its line, so a description
// cannot forge another line of output (a fake "$ command"), and carries no escape sequence.
function table(providers: readonly McpProvider[]): string {
  const rows = providers.map((p) => ({
    id: printable(p.id),
    name: printable(p.name),
    recommended: printable(p.recommended),
    description: printable(p.description),
  }));
  const idWidth = Math.max(2, ...rows.map((p) => p.id.length));
  const nameWidth = Math.max(4, ...rows.map((p) => p.name.length));
  const row = (id: string, name: string, transport: string, description: string) =>
    `${id.padEnd(idWidth)}  ${name.padEnd(nameWidth)}  ${transport.padEnd(9)}  ${description}`.trimEnd();
  return [
    row('ID', 'NAME', 'TRANSPORT', 'DESCRIPTION'),
    ...rows.map((p) => row(p.id, p.name, p.recommended, p.description)),
  ].join('\n');
}

function launchLine(provider: McpProvider): string | undefined {
  return provider.stdio ? printable([provider.stdio.command, ...provider.stdio.args].join(' ')) : undefined;
}

function details(provider: McpProvider): string {
  const p = printable;
  const lines = [`${p(provider.name)} (${p(provider.id)})`, p(provider.description), ''];
  lines.push(`Website:      ${p(provider.website)}`, `Recommended:  ${p(provider.recommended)}`);
  if (provider.http) {
    lines.push(
      `HTTP:         ${p(provider.http.url)} (auth: ${p(provider.http.auth)})`,
      `Docs:         ${p(provider.http.docs)}`,
    );
    if (provider.http.notes) lines.push(`Notes:        ${p(provider.http.notes)}`);
  }
  if (provider.stdio) {
    lines.push(`Stdio:        ${launchLine(provider)}`);
    const setup = provider.stdio.setup;
    if (setup) {
      lines.push(`Setup:        ${p(setup.description)}${setup.needsSetup ? ' (required)' : ''}`);
      lines.push(`              $ ${p(setup.command)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The configuration block for a provider's recommended transport. */
function mcpServerEntry(provider: McpProvider): McpServerEntry {
  if (provider.recommended === 'http' && provider.http) return { type: 'http', url: provider.http.url };
  const stdio = provider.stdio!;
  return { command: stdio.command, args: [...stdio.args] };
}

function placeholders(entry: McpServerEntry): string[] {
  const values = 'args' in entry ? entry.args : [];
  return values.filter((value) => /^<[^>]+>$/.test(value));
}

function addText(provider: McpProvider, entry: McpServerEntry): string {
  const p = printable;
  const block = jsonText({ mcpServers: { [provider.id]: entry } });
  const lines = [`Add this to the "mcpServers" section of your MCP client configuration:`, '', block, ''];
  const holes = placeholders(entry);
  if (holes.length > 0) lines.push(`Replace the placeholders in "args": ${p(holes.join(', '))}`);
  if ('url' in entry && provider.http) {
    const auth =
      provider.http.auth === 'oauth'
        ? 'oauth (your MCP client signs you in on first use)'
        : `${p(provider.http.auth)} (send an Authorization header)`;
    lines.push(`Authentication: ${auth}`, `Docs: ${p(provider.http.docs)}`);
    if (provider.http.notes) lines.push(`Notes: ${p(provider.http.notes)}`);
  }
  const setup = provider.recommended === 'stdio' ? provider.stdio?.setup : undefined;
  if (setup) {
    lines.push(`Setup${setup.needsSetup ? ' (required before first use)' : ''}: ${p(setup.description)}`);
    lines.push(`  $ ${p(setup.command)}`);
  }
  if ('url' in entry && provider.stdio) {
    lines.push(
      `Also runs locally over stdio: ${launchLine(provider)} (see "keyhold providers get ${p(provider.id)}")`,
    );
  }
  lines.push(`Website: ${p(provider.website)}`);
  return `${lines.join('\n')}\n`;
}

async function lookup(
  client: RegistryClient,
  io: CliIo,
  asJson: boolean,
  id: string,
): Promise<{ provider: McpProvider; source: 'remote' | 'local' } | undefined> {
  const found = await client.getProvider(id);
  if (!found.ok) {
    io.stderr(`keyhold providers: ${printable(found.note)}\n`);
    if (asJson) json(io, { error: 'provider_not_found', providerId: found.providerId, note: found.note });
    return undefined;
  }
  note(io, found);
  return { provider: found.provider, source: found.source };
}

/**
 * Creates the `keyhold providers` command: `list`, `get <id>`, `search <query>` and `add <id>` against the
 * registry at `--registry-url` (or `$KEYHOLD_REGISTRY_URL`), falling back to the local registry with a note
 * on stderr. Exit codes: 0 success, 1 provider unknown everywhere, 2 usage error.
 *
 * @example
 * ```ts
 * await runCli(process.argv.slice(2), io, { providers: createProvidersCommand() });
 * ```
 */
export function createProvidersCommand(options: ProvidersCommandOptions = {}): Command {
  return async (args: readonly string[], io: CliIo): Promise<ExitCode> => {
    let parsed: ReturnType<typeof parse>;
    try {
      parsed = parse(args);
    } catch (error) {
      io.stderr(`keyhold providers: ${(error as Error).message}\n\n${USAGE}`);
      return EXIT.usage;
    }
    const { values, positionals } = parsed;
    if (values.help) {
      io.stdout(USAGE);
      return EXIT.ok;
    }
    const [subcommand, argument, ...extra] = positionals;
    const needsArgument = subcommand === 'get' || subcommand === 'search' || subcommand === 'add';
    if (
      subcommand === undefined ||
      !['list', 'get', 'search', 'add'].includes(subcommand) ||
      (needsArgument && (argument === undefined || argument.trim() === '')) ||
      (!needsArgument && argument !== undefined) ||
      extra.length > 0
    ) {
      const why =
        subcommand === undefined
          ? 'a subcommand is required'
          : !['list', 'get', 'search', 'add'].includes(subcommand)
            ? `unknown subcommand "${subcommand}"`
            : needsArgument && (argument === undefined || argument.trim() === '')
              ? `"${subcommand}" needs ${subcommand === 'search' ? 'a query' : 'a provider id'}`
              : 'too many arguments';
      io.stderr(`keyhold providers: ${why}\n\n${USAGE}`);
      return EXIT.usage;
    }

    const registryUrl = values['registry-url'] ?? io.env[REGISTRY_URL_ENV];
    let client: RegistryClient;
    try {
      client = createRegistryClient({
        ...(registryUrl !== undefined && registryUrl !== '' ? { registryUrl } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
        ...(options.connectTimeoutMs !== undefined ? { connectTimeoutMs: options.connectTimeoutMs } : {}),
        ...(options.readTimeoutMs !== undefined ? { readTimeoutMs: options.readTimeoutMs } : {}),
        debug: values.debug === true,
        logger: stderrLogger(io),
        userAgent: `keyhold-cli/${manifest.version}`,
      });
    } catch (error) {
      if (error instanceof RegistryError && error.code === 'ERR_INVALID_OPTIONS') {
        io.stderr(`keyhold providers: ${error.message}\n`);
        return EXIT.usage;
      }
      throw error;
    }
    const asJson = values.json === true;

    switch (subcommand) {
      case 'list': {
        const listing = await client.listProviders();
        note(io, listing);
        const providers = Object.values(listing.providers).sort((a, b) => (a.id < b.id ? -1 : 1));
        if (asJson) json(io, { source: listing.source, count: providers.length, providers });
        else io.stdout(terminalText(`${table(providers)}\n\n${providers.length} providers\n`));
        return EXIT.ok;
      }
      case 'search': {
        const search = await client.searchProviders(argument!);
        note(io, search);
        if (asJson) {
          json(io, {
            source: search.source,
            query: search.query,
            count: search.count,
            results: search.results,
          });
        } else if (search.count === 0) io.stdout(terminalText(`No providers match "${search.query}".\n`));
        else
          io.stdout(
            terminalText(
              `${table(search.results)}\n\n${search.count} of the providers match "${search.query}"\n`,
            ),
          );
        return EXIT.ok;
      }
      case 'get': {
        const found = await lookup(client, io, asJson, argument!);
        if (!found) return EXIT.failure;
        if (asJson) json(io, found);
        else io.stdout(terminalText(details(found.provider)));
        return EXIT.ok;
      }
      default: {
        const found = await lookup(client, io, asJson, argument!);
        if (!found) return EXIT.failure;
        const { provider } = found;
        const entry = mcpServerEntry(provider);
        if (asJson) {
          const setup = provider.recommended === 'stdio' ? provider.stdio?.setup : undefined;
          json(io, {
            source: found.source,
            providerId: provider.id,
            mcpServers: { [provider.id]: entry },
            ...(setup ? { setup } : {}),
            ...('url' in entry && provider.http
              ? { auth: provider.http.auth, docs: provider.http.docs }
              : {}),
          });
        } else io.stdout(terminalText(addText(provider, entry)));
        return EXIT.ok;
      }
    }
  };
}

function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      'registry-url': { type: 'string' },
      json: { type: 'boolean' },
      debug: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/**
 * `keyhold providers` with the default options.
 *
 * @example
 * ```ts
 * process.exitCode = await runCli(['providers', 'list'], io, { providers: providersCommand });
 * ```
 */
export const providersCommand: Command = createProvidersCommand();
