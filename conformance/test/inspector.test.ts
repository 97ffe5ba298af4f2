import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveInBrowser, freePort, type HostProcess, node22, packageDir, startHost } from './host.js';

const inspector = join(
  packageDir,
  'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js',
);
const CLIENT_ID = 'https://client.example/oauth/client-metadata.json';

/**
 * Runs `mcp-inspector --cli` under Node 22 against the host's MCP endpoint. The Inspector's OAuth flow is
 * interactive: it prints "Please navigate to: <url>" on stderr and listens on its callback URL. With
 * MCP_AUTO_OPEN_ENABLED=true it does so without a TTY; an `xdg-open` that does nothing stands in for the
 * desktop, and this function plays the person at the browser.
 */
async function runInspector(
  mcpUrl: string,
  args: string[],
): Promise<{ exitCode: number | null; stdout: string; stderr: string; authorizationUrl?: URL }> {
  const home = mkdtempSync(join(tmpdir(), 'keyhold-inspector-'));
  const fakeOpen = join(home, 'xdg-open');
  writeFileSync(fakeOpen, '#!/bin/sh\nexit 0\n');
  chmodSync(fakeOpen, 0o755);
  const child = spawn(
    node22,
    [inspector, '--cli', '--server-url', mcpUrl, '--transport', 'http', '--method', 'tools/list', ...args],
    {
      env: {
        ...process.env,
        HOME: home,
        PATH: `${home}:${process.env['PATH'] ?? ''}`,
        MCP_AUTO_OPEN_ENABLED: 'true',
        MCP_INSPECTOR_SECRET_STORE: 'memory',
        NO_COLOR: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  let authorizationUrl: URL | undefined;
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    const match = /Please navigate to: (\S+)/.exec(stderr);
    if (match && !authorizationUrl) {
      authorizationUrl = new URL(match[1]!);
      approveInBrowser(authorizationUrl)
        .then((callback) => fetch(callback))
        .catch((error: unknown) => {
          stderr += `\n[browser step failed: ${String(error)}]\n`;
        });
    }
  });
  const timer = setTimeout(() => child.kill('SIGTERM'), 60_000);
  const exitCode = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  rmSync(home, { recursive: true, force: true });
  return { exitCode, stdout, stderr, ...(authorizationUrl ? { authorizationUrl } : {}) };
}

function toolNames(stdout: string): string[] {
  return (JSON.parse(stdout) as { tools: { name: string }[] }).tools.map((tool) => tool.name).sort();
}

let documentServer: Server;
let documentRequests = 0;
let callbackPort: number;
let host: HostProcess;

beforeAll(async () => {
  callbackPort = await freePort();
  // The Inspector's Client ID Metadata Document, served here; the host reaches https://client.example
  // through its development rewrite, with the allowlist naming client.example.
  documentServer = createServer((req, res) => {
    documentRequests++;
    if (req.url !== '/oauth/client-metadata.json') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' });
    res.end(
      JSON.stringify({
        client_id: CLIENT_ID,
        client_name: 'MCP Inspector (conformance)',
        redirect_uris: [`http://127.0.0.1:${callbackPort}/oauth/callback`],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    );
  });
  await new Promise<void>((resolve) => documentServer.listen(0, '127.0.0.1', resolve));
  host = await startHost({
    KEYHOLD_CIMD_DOMAINS: 'client.example',
    KEYHOLD_CIMD_DEV_REWRITE: `https://client.example=http://127.0.0.1:${(documentServer.address() as AddressInfo).port}`,
  });
});
afterAll(async () => {
  await host?.stop();
  await new Promise((resolve) => documentServer?.close(resolve));
});

describe('the MCP Inspector CLI listing the host tools through the full OAuth flow', () => {
  it('discovers, registers dynamically, gets consent approved, exchanges the code and lists the tools', async () => {
    const run = await runInspector(host.mcpUrl, [
      '--callback-url',
      `http://127.0.0.1:${callbackPort}/oauth/callback`,
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.authorizationUrl?.origin).toBe(new URL(host.url).origin);
    // A registered client id, not a metadata URL: this run went through RFC 7591.
    expect(run.authorizationUrl?.searchParams.get('client_id')).not.toMatch(/^https:/);
    expect(run.authorizationUrl?.searchParams.get('resource')).toBe(host.mcpUrl);
    expect(toolNames(run.stdout)).toEqual(expect.arrayContaining(['add_note', 'list_notes']));
  }, 90_000);

  it('does the same with a Client ID Metadata Document URL as its client_id', async () => {
    const before = documentRequests;
    const run = await runInspector(host.mcpUrl, [
      '--callback-url',
      `http://127.0.0.1:${callbackPort}/oauth/callback`,
      '--client-metadata-url',
      CLIENT_ID,
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.authorizationUrl?.searchParams.get('client_id')).toBe(CLIENT_ID);
    expect(documentRequests).toBeGreaterThan(before);
    expect(toolNames(run.stdout)).toEqual(expect.arrayContaining(['add_note', 'list_notes']));
  }, 90_000);
});
