import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  approveInBrowser,
  type ConformanceCheck,
  conformanceSuite,
  freePort,
  type HostProcess,
  node22,
  registerClient,
  startHost,
} from './host.js';

const suite = conformanceSuite;
type Check = ConformanceCheck;

/**
 * Checks that may end other than SUCCESS, each with the reason it is not a defect of the endpoint. Anything
 * else that is not SUCCESS fails the run.
 */
const ALLOWED: Record<string, { status: Check['status']; reason: string }> = {
  // The endpoint is stateless: its `Mcp-Session-Id` is a signed capability, not server state, so DELETE
  // answers 405 (which the 2025-11-25 transport permits) and there is never a terminated session to 404.
  'server-session-delete-accepted': { status: 'SKIPPED', reason: 'DELETE answers 405, spec-permitted' },
  'server-session-terminated-returns-404': { status: 'SKIPPED', reason: 'no session is ever terminated' },
  // Tool modules are fixed when the endpoint is created, so it declares no `listChanged` capability and the
  // suite skips the SHOULD-level list-changed notifications.
  'sep-2575-server-sends-prompts-list-changed-on-subscription': {
    status: 'SKIPPED',
    reason: 'no prompts.listChanged capability is declared',
  },
  'sep-2575-server-sends-tools-list-changed-on-subscription': {
    status: 'SKIPPED',
    reason: 'no tools.listChanged capability is declared',
  },
};

/**
 * `server-stateless` probes with diagnostic tools (`test_missing_capability`, `test_streaming_elicitation`,
 * `test_logging_tool`) that only the suite's own fixture server has; against a real server it reports those
 * checks as "Not testable". They are allowed by that wording, never as a plain failure.
 */
const NOT_TESTABLE: ReadonlySet<string> = new Set([
  'sep-2575-server-rejects-undeclared-capability',
  'sep-2575-missing-capability-http-400',
  'sep-2575-http-server-no-independent-requests-on-stream',
  'sep-2575-server-no-log-without-loglevel',
]);

function isNotTestable(check: Check): boolean {
  return (
    NOT_TESTABLE.has(check.id) &&
    /Not testable: server does not list the diagnostic tool/.test(JSON.stringify(check))
  );
}

/**
 * `caching` also lists (and reads) prompts and resources, which the endpoint does not serve and does not declare
 * in its capabilities; those four checks may fail with Method not found (or not exercised), and only that way. The tools/list hints
 * and the value checks must pass.
 */
const UNDECLARED_LISTS: ReadonlySet<string> = new Set([
  'sep-2549-prompts-list-caching-hints',
  'sep-2549-resources-list-caching-hints',
  'sep-2549-resources-templates-list-caching-hints',
  'sep-2549-resources-read-caching-hints',
]);

function isUndeclaredList(check: Check): boolean {
  return (
    UNDECLARED_LISTS.has(check.id) &&
    /returned JSON-RPC error -32601: Method not found|resources\/read was not exercised: resources\/list failed/.test(
      check.errorMessage ?? '',
    )
  );
}

/** The server scenarios that need no fixture tools, per revision (docs/design/mcp-package.md §6). */
const SCENARIOS: Record<'2025-11-25' | '2026-07-28', string[]> = {
  '2025-11-25': [
    'server-initialize',
    'server-session-lifecycle',
    'ping',
    'tools-list',
    'dns-rebinding-protection',
    'server-sse-multiple-streams',
    // SSE answers start with a priming event (id, retry): a WARNING here fails the run.
    'server-sse-polling',
  ],
  '2026-07-28': [
    'tools-list',
    'dns-rebinding-protection',
    'http-header-validation',
    'server-sse-multiple-streams',
    'input-required-result-unsupported-methods',
    'server-stateless',
    'caching',
  ],
};

async function runScenario(
  url: string,
  scenario: string,
  specVersion: string,
): Promise<{ exitCode: number | null; output: string; checks: Check[] }> {
  const outputDir = mkdtempSync(join(tmpdir(), 'keyhold-conformance-server-'));
  const child = spawn(
    node22,
    [
      suite,
      'server',
      '--url',
      url,
      '--scenario',
      scenario,
      '--spec-version',
      specVersion,
      '--output-dir',
      outputDir,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const timer = setTimeout(() => child.kill('SIGTERM'), 90_000);
  const exitCode = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  const checks: Check[] = [];
  for (const entry of readdirSync(outputDir, { recursive: true, encoding: 'utf8' })) {
    if (entry.endsWith('checks.json')) {
      checks.push(...(JSON.parse(readFileSync(join(outputDir, entry), 'utf8')) as Check[]));
    }
  }
  rmSync(outputDir, { recursive: true, force: true });
  return { exitCode, output, checks };
}

/** An access token for the MCP endpoint from a real authorization-code flow with PKCE. */
async function accessToken(host: HostProcess): Promise<string> {
  const redirectUri = 'http://127.0.0.1:1/callback';
  const client = await registerClient(host, {
    client_name: 'MCP conformance suite (server mode)',
    redirect_uris: [redirectUri],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  });
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL(`${host.issuer}/authorize`);
  authorize.search = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'mcp:tools',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: 'conformance',
    resource: host.mcpUrl,
  }).toString();
  const callback = await approveInBrowser(authorize);
  const response = await fetch(`${host.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code') ?? '',
      code_verifier: verifier,
      redirect_uri: redirectUri,
      client_id: client.client_id,
      resource: host.mcpUrl,
    }).toString(),
  });
  if (response.status !== 200) throw new Error(`token answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

/**
 * A reverse proxy of the kind hosts deploy in front of the endpoint: it adds the user's bearer token (the
 * suite has no option for request headers) and forwards everything else as sent, Host and Origin included,
 * so the host's own DNS-rebinding guard still decides. Bodies stream both ways, so SSE stays SSE.
 */
function startAuthenticatingProxy(listenPort: number, target: URL, token: string): Promise<Server> {
  const server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, authorization: `Bearer ${token}` },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  return new Promise((resolve) => server.listen(listenPort, '127.0.0.1', () => resolve(server)));
}

let host: HostProcess;
let proxy: Server;
let proxiedMcpUrl: string;
beforeAll(async () => {
  const proxyPort = await freePort();
  // The proxy's names and origins are ones the host answers to, as a deployment behind a proxy configures it.
  host = await startHost({
    KEYHOLD_ALLOWED_HOSTS: `127.0.0.1:${proxyPort},localhost:${proxyPort}`,
    KEYHOLD_ALLOWED_ORIGINS: `http://127.0.0.1:${proxyPort},http://localhost:${proxyPort}`,
  });
  const token = await accessToken(host);
  proxy = await startAuthenticatingProxy(proxyPort, new URL(host.url), token);
  proxiedMcpUrl = `http://127.0.0.1:${proxyPort}${new URL(host.mcpUrl).pathname}`;
});
afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise((resolve) => proxy?.close(resolve));
  await host?.stop();
});

describe.each(Object.entries(SCENARIOS))(
  'the official MCP conformance suite, server mode, at %s',
  (version, scenarios) => {
    it.each(scenarios)('passes every check of %s', async (scenario) => {
      const run = await runScenario(proxiedMcpUrl, scenario, version);
      // The per-check outcome in the CI log, the source of CONFORMANCE.md's table.
      console.log(
        `${version} ${scenario}\n${run.checks.map((check) => `  ${check.status.padEnd(8)} ${check.id}`).join('\n')}`,
      );
      expect(run.checks.length, run.output).toBeGreaterThan(0);
      const unexpected = run.checks.filter((check) => {
        if (check.status === 'SUCCESS' || check.status === 'INFO') return false;
        if (ALLOWED[check.id]?.status === check.status) return false;
        if (scenario === 'caching' && isUndeclaredList(check)) return false;
        return !(scenario === 'server-stateless' && isNotTestable(check));
      });
      expect(unexpected, run.output).toEqual([]);
    });
  },
);
