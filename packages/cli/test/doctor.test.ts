import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DoctorReport } from '../src/commands/doctor/render.js';
import { createDoctorCommand } from '../src/commands/doctor.js';
import type { CliIo } from '../src/io.js';

// Both run from their build output: build the CLI and the example host before testing.
const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const HOST = fileURLToPath(new URL('../../../examples/host/dist/main.js', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runBin(args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env['PATH'] ?? '' },
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
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

async function runInProcess(args: string[]): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env: {},
    cwd: process.cwd(),
    stdoutIsTTY: false,
  };
  const code = await createDoctorCommand()(args, io);
  return { code, stdout, stderr };
}

function failing(report: DoctorReport): Record<string, string[]> {
  return Object.fromEntries(
    report.clients
      .filter((client) => !client.ok)
      .map((client) => [
        client.id,
        client.findings.filter((finding) => finding.severity === 'error').map((finding) => finding.code),
      ]),
  );
}

describe('keyhold doctor passes the example host for every client', () => {
  let host: ChildProcess;
  let dataDir: string;
  let url: string;

  beforeAll(async () => {
    for (const file of [BIN, HOST]) if (!existsSync(file)) throw new Error(`${file} is missing: build first`);
    dataDir = mkdtempSync(join(tmpdir(), 'keyhold-doctor-'));
    host = spawn(process.execPath, [HOST], {
      env: {
        ...process.env,
        PORT: '0',
        KEYHOLD_DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        SVC_SINGLE_USER: '1',
        // CIMD for the clients that only use it, and browser registration for the Inspector.
        KEYHOLD_CIMD_DOMAINS: 'claude.ai,chatgpt.com',
        KEYHOLD_ALLOWED_ORIGINS: 'http://localhost:6274',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    url = await new Promise<string>((resolve, reject) => {
      host.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /listening on (https?:\/\/\S+)/.exec(out);
        if (match) resolve(match[1]!);
      });
      host.once('exit', (code) => reject(new Error(`host exited with ${code}:\n${out}`)));
    });
  }, 30_000);

  afterAll(async () => {
    if (host.exitCode === null) {
      const exited = new Promise((resolve) => host.once('exit', resolve));
      host.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('exits 0 from the MCP URL, naming every client OK', async () => {
    const run = await runBin(['doctor', `${url}/tenant/demo/mcp`]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    for (const name of [
      'Claude',
      'ChatGPT',
      'VS Code',
      'Cursor',
      'MCP SDK v1',
      'MCP SDK v2',
      'MCP Inspector',
    ]) {
      expect(run.stdout).toMatch(new RegExp(`^OK +${name}`, 'm'));
    }
    expect(run.stdout).not.toMatch(/^FAIL/m);
    expect(run.stdout).toContain('Every client would get through.');
  }, 30_000);

  it('exits 0 from the issuer URL, with the JSON report naming the documents read', async () => {
    const run = await runBin(['doctor', `${url}/tenant/demo`, '--json']);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as DoctorReport;
    expect(report).toMatchObject({
      target: `${url}/tenant/demo`,
      kind: 'issuer',
      issuer: `${url}/tenant/demo`,
      ok: true,
      documents: {
        protectedResourceMetadata: null,
        authorizationServerMetadata: `${url}/.well-known/oauth-authorization-server/tenant/demo`,
      },
    });
    expect(report.clients.find((client) => client.id === 'chatgpt')).toMatchObject({
      ok: true,
      registration: 'cimd',
      authMethod: 'private_key_jwt',
    });
    expect(report.clients.find((client) => client.id === 'vscode')).toMatchObject({
      ok: true,
      registration: 'dcr',
      authMethod: 'none',
    });
  }, 30_000);
});

/** What a deliberately misconfigured deployment serves; each test breaks one thing. */
interface Deployment {
  challenge: boolean;
  resource?: string;
  metadata: Record<string, unknown>;
  cors: boolean;
}

describe('keyhold doctor names the client each misconfiguration breaks and exits 1', () => {
  let server: Server;
  let origin: string;
  let deployment: Deployment;

  const goodMetadata = () => ({
    issuer: origin,
    authorization_endpoint: `${origin}/authorize`,
    token_endpoint: `${origin}/token`,
    registration_endpoint: `${origin}/register`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'private_key_jwt'],
    token_endpoint_auth_signing_alg_values_supported: ['RS256', 'ES256'],
    scopes_supported: ['mcp:tools'],
    client_id_metadata_document_supported: true,
  });

  beforeAll(async () => {
    server = createServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://x').pathname;
      const cors: Record<string, string> = deployment.cors
        ? {
            'access-control-allow-origin': '*',
            'access-control-allow-methods': 'GET, POST, OPTIONS',
            'access-control-allow-headers': 'content-type, mcp-protocol-version',
          }
        : {};
      if (request.method === 'OPTIONS') {
        response.writeHead(204, cors).end();
        return;
      }
      const json = (body: unknown) =>
        response.writeHead(200, { 'content-type': 'application/json', ...cors }).end(JSON.stringify(body));
      if (path === '/mcp') {
        response
          .writeHead(401, {
            'www-authenticate': deployment.challenge
              ? `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"`
              : 'Bearer',
          })
          .end();
      } else if (path === '/.well-known/oauth-protected-resource/mcp') {
        json({
          resource: deployment.resource ?? `${origin}/mcp`,
          authorization_servers: [origin],
          scopes_supported: ['mcp:tools'],
        });
      } else if (path === '/.well-known/oauth-authorization-server') {
        json(deployment.metadata);
      } else {
        response.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    deployment = { challenge: true, metadata: goodMetadata(), cors: true };
  });

  async function doctor(): Promise<{ code: number | null; report: DoctorReport; text: string }> {
    const json = await runInProcess([`${origin}/mcp`, '--json']);
    const text = await runInProcess([`${origin}/mcp`]);
    expect(text.code).toBe(json.code);
    return { code: json.code, report: JSON.parse(json.stdout) as DoctorReport, text: text.stdout };
  }

  it('--json prints the documented shape: the documents read and, per client, how it signs in and its findings', async () => {
    deployment.metadata['token_endpoint_auth_methods_supported'] = ['client_secret_basic'];
    const { report } = await doctor();
    expect(Object.keys(report).sort()).toEqual(['clients', 'documents', 'issuer', 'kind', 'ok', 'target']);
    expect(report).toMatchObject({
      target: `${origin}/mcp`,
      kind: 'resource',
      issuer: origin,
      ok: false,
      documents: {
        protectedResourceMetadata: `${origin}/.well-known/oauth-protected-resource/mcp`,
        authorizationServerMetadata: `${origin}/.well-known/oauth-authorization-server`,
      },
    });
    expect(report.clients.map((client) => client.id)).toEqual([
      'claude',
      'chatgpt',
      'vscode',
      'cursor',
      'mcp-sdk-v1',
      'mcp-sdk-v2',
      'mcp-inspector',
    ]);
    const claude = report.clients[0]!;
    expect(Object.keys(claude).sort()).toEqual([
      'authMethod',
      'findings',
      'id',
      'name',
      'ok',
      'registration',
    ]);
    expect(claude).toMatchObject({ name: 'Claude', registration: 'cimd', authMethod: null, ok: false });
    expect(claude.findings).toEqual([
      {
        severity: 'error',
        code: 'auth_method_unadvertised',
        message: expect.stringContaining('lacks "none"'),
        fix: expect.stringContaining('Add "none" to token_endpoint_auth_methods_supported'),
      },
      // Claude signs in from its own servers: a loopback deployment works for local clients only.
      expect.objectContaining({ severity: 'warning', code: 'loopback_unreachable' }),
    ]);
  });

  it('passes the deployment before it is broken', async () => {
    const { code, report } = await doctor();
    expect(failing(report)).toEqual({});
    expect(code).toBe(0);
  });

  it('metadata without S256 fails every client on pkce_s256', async () => {
    deployment.metadata['code_challenge_methods_supported'] = ['plain'];
    const { code, report, text } = await doctor();
    expect(code).toBe(1);
    for (const client of report.clients) expect(failing(report)[client.id]).toContain('pkce_s256');
    expect(text).toMatch(/^FAIL Claude/m);
    expect(text).toContain('Fix: Advertise code_challenge_methods_supported: ["S256"].');
  });

  it('auth methods without "none" fail the public clients, not ChatGPT (private_key_jwt)', async () => {
    deployment.metadata['token_endpoint_auth_methods_supported'] = ['client_secret_basic', 'private_key_jwt'];
    const { code, report, text } = await doctor();
    expect(code).toBe(1);
    expect(Object.keys(failing(report)).sort()).toEqual(
      ['claude', 'cursor', 'mcp-inspector', 'mcp-sdk-v1', 'mcp-sdk-v2', 'vscode'].sort(),
    );
    expect(failing(report)['vscode']).toEqual(['auth_method_unadvertised']);
    expect(text).toMatch(/^OK +ChatGPT \(CIMD, private_key_jwt\)/m);
    expect(text).toMatch(/^FAIL VS Code: 1 problem/m);
  });

  it('without private_key_jwt ChatGPT falls back to none with a warning', async () => {
    deployment.metadata['token_endpoint_auth_methods_supported'] = ['none'];
    const { code, report } = await doctor();
    expect(code).toBe(0);
    const chatgpt = report.clients.find((client) => client.id === 'chatgpt')!;
    expect(chatgpt).toMatchObject({ ok: true, authMethod: 'none' });
    expect(chatgpt.findings.map((finding) => finding.code)).toContain('auth_method_fallback');
  });

  it('a PRM whose resource differs from the URL fails every client on resource_mismatch', async () => {
    deployment.resource = 'https://elsewhere.example/mcp';
    const { code, report } = await doctor();
    expect(code).toBe(1);
    for (const client of report.clients) expect(failing(report)[client.id]).toEqual(['resource_mismatch']);
  });

  it('no CIMD support fails Claude and ChatGPT only; the SDKs use registration instead', async () => {
    deployment.metadata['client_id_metadata_document_supported'] = false;
    const { code, report } = await doctor();
    expect(code).toBe(1);
    expect(failing(report)).toEqual({ claude: ['cimd_unsupported'], chatgpt: ['cimd_unsupported'] });
    expect(report.clients.find((client) => client.id === 'mcp-sdk-v2')).toMatchObject({
      registration: 'dcr',
    });
  });

  it('no registration endpoint fails the registration-only clients (VS Code, Cursor)', async () => {
    delete deployment.metadata['registration_endpoint'];
    const { report } = await doctor();
    expect(failing(report)).toEqual({
      vscode: ['no_registration_endpoint'],
      cursor: ['no_registration_endpoint'],
    });
  });

  it('no CORS fails only the browser client (the Inspector)', async () => {
    deployment.cors = false;
    const { code, report } = await doctor();
    expect(code).toBe(1);
    expect(Object.keys(failing(report))).toEqual(['mcp-inspector']);
    expect(failing(report)['mcp-inspector']).toContain('cors_preflight');
  });

  it('a challenge without resource_metadata is a warning: clients fall back to the well-known URL', async () => {
    deployment.challenge = false;
    const { code, report } = await doctor();
    expect(code).toBe(0);
    expect(report.clients[0]!.findings.map((finding) => finding.code)).toContain(
      'challenge_without_resource_metadata',
    );
  });
});

describe('keyhold doctor bounds what it fetches', () => {
  it('refuses plain http to a host that is not loopback, exit 1', async () => {
    const run = await runInProcess(['http://mcp.example.com/mcp', '--json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'unreachable' } });
  });

  it('stops reading a document larger than 256 KiB', async () => {
    const big = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(`"${'x'.repeat(300 * 1024)}"`);
    });
    await new Promise<void>((resolve) => big.listen(0, '127.0.0.1', resolve));
    try {
      const run = await runInProcess([
        `http://127.0.0.1:${(big.address() as AddressInfo).port}/mcp`,
        '--json',
      ]);
      expect(run.code).toBe(1);
      expect(JSON.parse(run.stdout).error.message).toContain('more than 262144 bytes');
    } finally {
      await new Promise((resolve) => big.close(resolve));
    }
  });

  it('rejects a URL that is not http(s) as a usage error', async () => {
    const run = await runInProcess(['ftp://example.com']);
    expect(run.code).toBe(2);
  });
});
