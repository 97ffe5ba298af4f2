import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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
 * Runs `conformance authorization` (every authorization-server scenario) under Node 22, playing the person
 * at the browser: when the suite prints its authorization URL, approve it on the single-user host, which
 * redirects to the suite's own callback server.
 */
async function runAuthorizationSuite(
  args: string[],
): Promise<{ exitCode: number | null; output: string; checks: Map<string, Check[]> }> {
  const outputDir = mkdtempSync(join(tmpdir(), 'keyhold-conformance-results-'));
  const child = spawn(node22, [suite, 'authorization', ...args, '--output-dir', outputDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let approval: Promise<unknown> | undefined;
  let callbackListening: () => void = () => {};
  const listening = new Promise<void>((resolve) => {
    callbackListening = resolve;
  });
  const onData = (chunk: Buffer): void => {
    output += chunk.toString();
    // The suite prints the URL before its callback server has finished binding and announces the bind on a
    // line of its own; the redirect is delivered only after that line (on a busy machine it comes later).
    if (/Callback server started/.test(output)) callbackListening();
    const match = /^(http\S+\/authorize\?\S+)$/m.exec(output);
    if (match && !approval) {
      approval = approveInBrowser(match[1]!).then(async (callback) => {
        await listening;
        return fetch(callback);
      });
      approval.catch((error: unknown) => {
        // Without the callback the suite would wait five minutes; end it now so the failure shows.
        output += `\n[browser step failed: ${String(error)}]\n`;
        child.kill('SIGTERM');
      });
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const timer = setTimeout(() => child.kill('SIGTERM'), 90_000);
  // 'close', not 'exit': the output streams are drained by then, so `output` is complete.
  const exitCode = await new Promise<number | null>((resolve) =>
    child.once('close', (code) => resolve(code)),
  );
  clearTimeout(timer);
  const checks = new Map<string, Check[]>();
  for (const entry of readdirSync(outputDir, { recursive: true, encoding: 'utf8' })) {
    if (!entry.endsWith('checks.json')) continue;
    const list = JSON.parse(readFileSync(join(outputDir, entry), 'utf8')) as Check[];
    for (const check of list) checks.set(check.id, [...(checks.get(check.id) ?? []), check]);
  }
  rmSync(outputDir, { recursive: true, force: true });
  return { exitCode, output, checks };
}

/** The scenario names under "Authorization server scenarios" in `conformance list`, for one revision. */
async function listAuthorizationScenarios(specVersion: string): Promise<string[]> {
  const child = spawn(node22, [suite, 'list', '--authorization', '--spec-version', specVersion], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  await new Promise((resolve) => child.once('exit', resolve));
  const section = output.split(/Authorization server scenarios[^\n]*\n/)[1] ?? '';
  return [...section.matchAll(/^\s+- (\S+)/gm)].map((match) => match[1]!);
}

/** Every revision the suite's `--spec-version` knows, oldest first. */
const SPEC_VERSIONS = ['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const;

/**
 * The suite's verdict, strictly: every check it wrote is SUCCESS (a WARNING, SKIPPED or INFO fails too), every
 * scenario the suite lists for the revision ran and passed (so an upgrade that adds one cannot slip by unrun),
 * the summary reads `0 failed` and the suite exits 0.
 */
async function expectEveryCheckPassed(
  run: Awaited<ReturnType<typeof runAuthorizationSuite>>,
  specVersion: string,
): Promise<void> {
  const all = [...run.checks.values()].flat();
  // The per-check outcome in the CI log, the source of CONFORMANCE.md's table.
  console.log(
    `--spec-version ${specVersion}\n${all.map((check) => `${check.status.padEnd(8)} ${check.id}`).join('\n')}`,
  );
  const notPassed = all.filter((check) => check.status !== 'SUCCESS');
  expect(notPassed, run.output).toEqual([]);
  expect([...run.checks.keys()].sort(), run.output).toEqual(
    expect.arrayContaining(['authorization-code-grant', 'authorization-server-metadata']),
  );
  const scenarios = await listAuthorizationScenarios(specVersion);
  expect(scenarios.length).toBeGreaterThanOrEqual(2);
  for (const scenario of scenarios) expect(run.output).toContain(`✓ ${scenario}:`);
  expect(run.output).toMatch(/Total: \d+ passed, 0 failed/);
  expect(run.exitCode, run.output).toBe(0);
}

let host: HostProcess;
beforeAll(async () => {
  // CIMD is advertised only when a document host is allowed; the suite checks the advertisement only.
  host = await startHost({
    KEYHOLD_CONFIDENTIAL_TENANT: 'confidential',
    KEYHOLD_CIMD_DOMAINS: 'conformance-test.local',
  });
});
afterAll(async () => {
  await host?.stop();
});

describe('the official MCP conformance suite, authorization-server mode, against the tenant issuer', () => {
  it('knows exactly the revisions run here', async () => {
    // A suite upgrade that adds a revision fails this until the revision gets its own run below.
    const child = spawn(node22, [suite, 'list', '--authorization'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    await new Promise((resolve) => child.once('exit', resolve));
    const revisions = new Set([...output.matchAll(/\d{4}-\d{2}-\d{2}/g)].map((match) => match[0]));
    expect([...revisions].sort()).toEqual([...SPEC_VERSIONS]);
  });

  it.each(SPEC_VERSIONS)(
    'passes every check of every authorization-server scenario at --spec-version %s (public client, `none`)',
    async (specVersion) => {
      const port = await freePort();
      // The suite authenticates with `none` whenever the server advertises it, so its client is public.
      const client = await registerClient(host, {
        client_name: 'MCP conformance suite',
        redirect_uris: [`http://127.0.0.1:${port}/callback`],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      });
      const run = await runAuthorizationSuite([
        '--url',
        host.issuer,
        '--client-id',
        client.client_id,
        '--resource',
        host.mcpUrl,
        '--port',
        String(port),
        '--spec-version',
        specVersion,
      ]);
      await expectEveryCheckPassed(run, specVersion);
      // The suite checks `client_id_metadata_document_supported` from 2025-11-25 on (CIMD's revision) only.
      expect(run.checks.has('authorization-server-metadata-cimd'), run.output).toBe(
        specVersion >= '2025-11-25',
      );
    },
    120_000,
  );
});

describe('the same suite against a tenant without public clients (KEYHOLD_CONFIDENTIAL_TENANT)', () => {
  const issuer = (): string => `${host.url}/tenant/confidential`;

  /** A confidential client of the tenant (client_secret_basic), with the suite's callback registered. */
  async function confidentialClient(port: number) {
    const client = await registerClient(
      host,
      {
        client_name: 'MCP conformance suite (confidential)',
        redirect_uris: [`http://127.0.0.1:${port}/callback`],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
      issuer(),
    );
    expect(client.client_secret).toEqual(expect.any(String));
    return client as { client_id: string; client_secret: string };
  }

  it('advertises no `none`, so the suite must authenticate with the secret (client_secret_basic)', async () => {
    const metadata = (await (
      await fetch(`${host.url}/.well-known/oauth-authorization-server/tenant/confidential`)
    ).json()) as Record<string, unknown>;
    // The suite picks `none` when listed, else client_secret_post, else client_secret_basic.
    expect(metadata.token_endpoint_auth_methods_supported).toEqual([
      'client_secret_basic',
      'private_key_jwt',
    ]);
  });

  it.each(SPEC_VERSIONS)(
    'passes every check at --spec-version %s with --client-id and --client-secret of a confidential client',
    async (specVersion) => {
      const port = await freePort();
      const client = await confidentialClient(port);
      const run = await runAuthorizationSuite([
        '--url',
        issuer(),
        '--client-id',
        client.client_id,
        '--client-secret',
        client.client_secret,
        '--resource',
        `${issuer()}/mcp`,
        '--port',
        String(port),
        '--spec-version',
        specVersion,
      ]);
      await expectEveryCheckPassed(run, specVersion);
    },
    120_000,
  );

  it('fails the code grant with a wrong secret: the secret is what authenticates the suite', async () => {
    const port = await freePort();
    const client = await confidentialClient(port);
    const run = await runAuthorizationSuite([
      '--url',
      issuer(),
      '--client-id',
      client.client_id,
      '--client-secret',
      `${client.client_secret}x`,
      '--resource',
      `${issuer()}/mcp`,
      '--port',
      String(port),
      '--spec-version',
      '2026-07-28',
    ]);
    const grant = run.checks.get('authorization-code-grant')?.[0];
    expect(grant?.status, `exit ${run.exitCode}: ${run.output}`).toBe('FAILURE');
    expect(grant?.errorMessage).toContain('401');
    expect(run.exitCode).not.toBe(0);
  }, 120_000);
});
