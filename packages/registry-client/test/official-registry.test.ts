import { describe, expect, it } from 'vitest';
import { loadBundledProviders } from '../src/bundled-providers.js';
import { RegistryError } from '../src/errors.js';
import { serverJsonToProvider } from '../src/official-registry/from-server-json.js';
import { SERVER_JSON_SCHEMA_URL } from '../src/official-registry/server-json.js';
import { importOfficialServerList } from '../src/official-registry/server-list-import.js';
import { providerToServerJson } from '../src/official-registry/to-server-json.js';
import { httpProvider, stdioProvider } from './helpers/providers.js';

const options = { namespace: 'io.github.acme', version: '1.0.0' };

describe('providerToServerJson', () => {
  it('maps an npx launch to an npm package with its pinned version and arguments', () => {
    const provider = stdioProvider('fs', {
      stdio: { command: 'npx', args: ['-y', '@scope/server-fs@2.1.0', '<allowed-directory>', '--verbose'] },
    });
    const { value } = providerToServerJson(provider, options);
    expect(value).toMatchObject({
      $schema: SERVER_JSON_SCHEMA_URL,
      name: 'io.github.acme/fs',
      title: provider.name,
      version: '1.0.0',
      websiteUrl: provider.website,
    });
    expect(value.packages).toEqual([
      {
        registryType: 'npm',
        identifier: '@scope/server-fs',
        version: '2.1.0',
        runtimeHint: 'npx',
        transport: { type: 'stdio' },
        packageArguments: [
          { type: 'positional', valueHint: 'allowed-directory', isRequired: true },
          { type: 'positional', value: '--verbose' },
        ],
      },
    ]);
  });

  it('maps a uvx launch to a PyPI package and an unpinned version to none, saying so', () => {
    const { value, unmapped } = providerToServerJson(
      stdioProvider('time', { stdio: { command: 'uvx', args: ['mcp-server-time'] } }),
      options,
    );
    expect(value.packages?.[0]).toMatchObject({
      registryType: 'pypi',
      identifier: 'mcp-server-time',
      runtimeHint: 'uvx',
    });
    expect(value.packages?.[0]).not.toHaveProperty('version');
    expect(unmapped.some((line) => line.includes('not pinned'))).toBe(true);
  });

  it('maps docker run to an OCI package with its environment variables', () => {
    const github = loadBundledProviders()['github']!;
    const { value } = providerToServerJson(github, options);
    expect(value.packages?.[0]).toMatchObject({
      registryType: 'oci',
      identifier: 'ghcr.io/github/github-mcp-server',
      runtimeHint: 'docker',
      environmentVariables: [
        expect.objectContaining({ name: 'GITHUB_PERSONAL_ACCESS_TOKEN', isSecret: true }),
      ],
    });
  });

  it('maps http to a streamable-http remote, declaring Authorization for bearer and basic only', () => {
    const oauth = providerToServerJson(httpProvider('a'), options).value;
    expect(oauth.remotes).toEqual([{ type: 'streamable-http', url: 'https://mcp.example.com/a' }]);
    const base = httpProvider('b');
    const bearer = providerToServerJson({ ...base, http: { ...base.http!, auth: 'bearer' } }, options).value;
    expect(bearer.remotes?.[0]?.headers).toEqual([
      expect.objectContaining({ name: 'Authorization', isSecret: true }),
    ]);
  });

  it('lists what server.json cannot hold: launchers other than npx, uvx and docker', () => {
    const { value, unmapped } = providerToServerJson(
      stdioProvider('bin', { stdio: { command: '/usr/local/bin/server', args: [] } }),
      options,
    );
    expect(value.packages).toBeUndefined();
    expect(unmapped.join('\n')).toMatch(/not a package runner/);
  });

  it('refuses a namespace that is not reverse-DNS and a floating version', () => {
    expect(() => providerToServerJson(httpProvider('a'), { namespace: 'a/b', version: '1' })).toThrow(
      RegistryError,
    );
    expect(() => providerToServerJson(httpProvider('a'), { namespace: 'a.b', version: 'latest' })).toThrow(
      RegistryError,
    );
  });
});

describe('serverJsonToProvider', () => {
  it('round-trips every bundled provider without loss', () => {
    for (const provider of Object.values(loadBundledProviders())) {
      const { value } = providerToServerJson(provider, options);
      const back = serverJsonToProvider(JSON.parse(JSON.stringify(value)));
      expect(back.ok, provider.id).toBe(true);
      if (back.ok) expect(back.value, provider.id).toEqual(provider);
    }
  });

  it('keeps every bundled provider usable without the Keyhold metadata', () => {
    for (const provider of Object.values(loadBundledProviders())) {
      const { value } = providerToServerJson(provider, options);
      const { _meta, ...plain } = value;
      const back = serverJsonToProvider(plain);
      expect(back.ok, provider.id).toBe(true);
      if (!back.ok) continue;
      expect(back.value.id).toBe(provider.id);
      expect(back.value.http?.url).toBe(provider.http?.url);
      if (provider.stdio) expect(back.value.stdio?.command, provider.id).toBe(provider.stdio.command);
    }
  });

  it('reads a plain official entry (no Keyhold metadata)', () => {
    const converted = serverJsonToProvider({
      $schema: SERVER_JSON_SCHEMA_URL,
      name: 'io.github.user/Local-Weather',
      description: 'Local MCP server distributed as an npm package.',
      version: '1.0.0',
      repository: { url: 'https://github.com/user/weather', source: 'github' },
      packages: [
        {
          registryType: 'npm',
          identifier: '@user/server-weather',
          version: '1.0.0',
          transport: { type: 'stdio' },
          packageArguments: [
            { type: 'positional', valueHint: 'config_path' },
            { type: 'named', name: '--port', value: '8080' },
          ],
          environmentVariables: [
            { name: 'API_KEY', isSecret: true, isRequired: true, description: 'Weather key' },
          ],
        },
      ],
      remotes: [
        { type: 'sse', url: 'https://weather.example.com/sse' },
        {
          type: 'streamable-http',
          url: 'https://weather.example.com/mcp',
          headers: [{ name: 'Authorization', isSecret: true }],
        },
      ],
    });
    expect(converted).toMatchObject({
      ok: true,
      value: {
        id: 'local-weather',
        name: 'Local-Weather',
        website: 'https://github.com/user/weather',
        recommended: 'http',
        stdio: {
          command: 'npx',
          args: ['-y', '@user/server-weather@1.0.0', '<config_path>', '--port', '8080'],
          setup: { command: 'export API_KEY=<api_key>', needsSetup: true },
        },
        http: {
          url: 'https://weather.example.com/mcp',
          auth: 'bearer',
          docs: 'https://github.com/user/weather',
        },
      },
    });
  });

  it('skips remotes whose URL needs variables, and refuses an entry with no usable transport', () => {
    const converted = serverJsonToProvider({
      name: 'io.github.user/templated',
      description: 'Templated',
      version: '1.0.0',
      websiteUrl: 'https://example.com',
      remotes: [{ type: 'streamable-http', url: 'https://{host}/mcp' }],
    });
    expect(converted).toEqual({
      ok: false,
      name: 'io.github.user/templated',
      reason: expect.stringMatching(/no stdio/),
    });
  });

  it('refuses what is not a server.json entry', () => {
    expect(serverJsonToProvider({ hello: 'world' })).toMatchObject({ ok: false });
  });
});

describe('importOfficialServerList (GET /v0.1/servers page)', () => {
  const entry = (name: string, url: string, meta: Record<string, unknown> = {}) => ({
    server: {
      name,
      description: `${name} server`,
      version: '1.0.0',
      remotes: [{ type: 'streamable-http', url }],
    },
    _meta: { 'io.modelcontextprotocol.registry/official': { status: 'active', isLatest: true, ...meta } },
  });

  it('converts active latest entries and reports the rest, with the next cursor', () => {
    const page = {
      servers: [
        entry('com.acme/alpha', 'https://alpha.acme.com/mcp'),
        entry('com.acme/old', 'https://old.acme.com/mcp', { status: 'deprecated' }),
        entry('com.acme/beta', 'https://beta.acme.com/mcp', { isLatest: false }),
        entry('org.other/alpha', 'https://alpha.other.org/mcp'),
        { server: { name: 'com.acme/nothing', description: 'x', version: '1' } },
      ],
      metadata: { nextCursor: 'abc', count: 5 },
    };
    const result = importOfficialServerList(page);
    expect(Object.keys(result.providers)).toEqual(['alpha']);
    expect(result.providers['alpha']?.http?.url).toBe('https://alpha.acme.com/mcp');
    expect(result.nextCursor).toBe('abc');
    expect(result.skipped.map((s) => s.name)).toEqual([
      'com.acme/old',
      'com.acme/beta',
      'org.other/alpha',
      'com.acme/nothing',
    ]);
  });

  it('throws ERR_INVALID_PROVIDERS for a page of the wrong shape', () => {
    expect(() => importOfficialServerList({ data: [] })).toThrow(RegistryError);
  });
});
