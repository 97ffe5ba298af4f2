import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClaims } from '../../src/claims.js';
import { createFileClaimStore } from '../../src/file-store.js';
import { callError, connectClient, startHost, type TestHost, toolNames } from './host-fixture.js';

// The daemon side runs in this process over a file store; the other side is the real `keyhold` CLI in a
// child process. The CLI is built (with its workspace dependencies) when dist/ is missing or stale; CI
// builds everything before testing anyway.
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '../../../..');
const bin = join(repoRoot, 'packages/cli/dist/bin.js');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

function ensureCliBuilt(): void {
  const built = [
    bin,
    join(repoRoot, 'packages/claim-codes/dist/index.js'),
    join(repoRoot, 'packages/core/dist/index.js'),
  ];
  const sources = ['cli', 'claim-codes', 'core'].map((name) => join(repoRoot, 'packages', name, 'src'));
  const stale =
    built.some((file) => !existsSync(file)) ||
    Math.max(...sources.map(newestMtime)) > Math.min(...built.map((file) => statSync(file).mtimeMs));
  if (stale)
    execFileSync('pnpm', ['--filter', '@keyhold/cli...', 'build'], { cwd: repoRoot, stdio: 'ignore' });
}

function keyhold(args: readonly string[], dataDir: string): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { env: { PATH: process.env.PATH ?? '', KEYHOLD_DATA_DIR: dataDir } },
      (error, stdout) => resolve({ code: error === null ? 0 : Number(error.code ?? 1), stdout }),
    );
  });
}

let host: TestHost;
let dataDir: string;
const clients: Client[] = [];

beforeAll(async () => {
  ensureCliBuilt();
  dataDir = join(mkdtempSync(join(tmpdir(), 'claim-daemon-')), '.keyhold');
  host = await startHost({ claims: createClaims({ store: createFileClaimStore({ dataDir }) }) });
}, 300_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await host.close();
});

describe('the CLI and a running daemon share one claim file', () => {
  it('serves a code the CLI just created, and widens the same session on the request after `claim revoke`', async () => {
    const created = await keyhold(['claim', '--json', '--scope', host.alphaDir], dataDir);
    expect(created.code).toBe(0);
    const { code } = JSON.parse(created.stdout) as { code: string };

    const session = await connectClient(host.url, code);
    clients.push(session);
    expect(await toolNames(session)).toEqual(['alpha_echo', 'alpha_fail', 'alpha_login']);
    expect((await callError(session, 'beta_echo'))?.code).toBe(-32602);

    expect((await keyhold(['claim', 'revoke', code], dataDir)).code).toBe(0);
    expect(await toolNames(session)).toEqual([
      'alpha_echo',
      'alpha_fail',
      'alpha_login',
      'beta_echo',
      'sneaky_echo',
    ]);
    expect(await callError(session, 'beta_echo')).toBeUndefined();
  });
});

describe('a running daemon and CLI processes never lose each other’s writes', () => {
  it('keeps all records when 10 CLI processes and the daemon create codes at the same time', async () => {
    const shared = join(mkdtempSync(join(tmpdir(), 'claim-shared-')), '.keyhold');
    const daemon = createClaims({ store: createFileClaimStore({ dataDir: shared }) });
    const [cliRuns, daemonClaims] = await Promise.all([
      Promise.all(
        Array.from({ length: 10 }, () => keyhold(['claim', '--json', '--scope', host.alphaDir], shared)),
      ),
      Promise.all(Array.from({ length: 10 }, () => daemon.create({ scopeDir: host.betaDir }))),
    ]);
    expect(cliRuns.map((run) => run.code)).toEqual(Array(10).fill(0));
    const listed = await daemon.list();
    expect(listed).toHaveLength(20);
    expect(
      listed
        .filter((claim) => claim.scopeDir === host.betaDir)
        .map((c) => c.code)
        .sort(),
    ).toEqual(daemonClaims.map((c) => c.code).sort());
  }, 60_000);
});
