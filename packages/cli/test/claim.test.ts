import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPostgresPool } from '@keyhold/store-postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimCommand } from '../src/commands/claim.js';
import type { CliIo } from '../src/io.js';

// These tests run the built CLI as a real child process. They build it (with its workspace dependencies)
// when dist/ is missing or older than a source file; CI builds everything before testing anyway.
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const bin = join(repoRoot, 'packages/cli/dist/bin.js');

function newestSourceMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

function ensureBuilt(): void {
  const built = [
    bin,
    join(repoRoot, 'packages/claim-codes/dist/index.js'),
    join(repoRoot, 'packages/core/dist/index.js'),
  ];
  const sources = ['cli', 'claim-codes', 'core'].map((name) => join(repoRoot, 'packages', name, 'src'));
  const stale =
    built.some((file) => !existsSync(file)) ||
    Math.max(...sources.map(newestSourceMtime)) > Math.min(...built.map((file) => statSync(file).mtimeMs));
  if (stale)
    execFileSync('pnpm', ['--filter', '@keyhold/cli...', 'build'], { cwd: repoRoot, stdio: 'ignore' });
}

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function keyhold(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd: options.cwd, env: { PATH: process.env.PATH ?? '', ...options.env } },
      (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr });
      },
    );
  });
}

function workspace(): { cwd: string; dataDir: string } {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'keyhold-claim-')));
  return { cwd, dataDir: join(cwd, '.keyhold') };
}

interface StoredClaim {
  code: string;
  scopeDir: string;
  createdAt: number;
  expiresAt: number;
  label?: string;
}

function storedClaims(dataDir: string): StoredClaim[] {
  return JSON.parse(readFileSync(join(dataDir, 'claims.json'), 'utf8')).claims;
}

beforeAll(ensureBuilt, 300_000);

describe('keyhold claim: creates a code', () => {
  it('defaults to the current directory and 24 hours, and prints code, scope, time left and header', async () => {
    const { cwd, dataDir } = workspace();
    const run = await keyhold(['claim'], { cwd });
    expect(run.code).toBe(0);
    const [stored] = storedClaims(dataDir);
    const shown = `${stored?.code.slice(0, 3)}-${stored?.code.slice(3)}`;
    expect(run.stdout).toContain(`Claim code  ${shown}`);
    expect(run.stdout).toContain(`Scope       ${cwd}`);
    expect(run.stdout).toMatch(/Expires in {2}24h \(/);
    expect(run.stdout).toContain(`Mcp-Claim-Code: ${shown}`);
    // Stateless serving has no SSE stream to add the code to: the query parameter goes on the endpoint URL.
    expect(run.stdout).toContain('add ?claim=<code> to the MCP endpoint URL');
    expect(run.stdout).not.toMatch(/SSE/);
    expect(stored?.scopeDir).toBe(cwd);
    expect((stored?.expiresAt ?? 0) - (stored?.createdAt ?? 0)).toBe(86_400_000);
  });

  it('takes --scope (relative to the working directory), --ttl and --label', async () => {
    const { cwd, dataDir } = workspace();
    mkdirSync(join(cwd, 'sub'));
    const run = await keyhold(['claim', '--scope', 'sub', '--ttl', '1h30m', '--label', 'review bot'], {
      cwd,
    });
    expect(run.code).toBe(0);
    const [stored] = storedClaims(dataDir);
    expect(stored).toMatchObject({ scopeDir: join(cwd, 'sub'), label: 'review bot' });
    expect((stored?.expiresAt ?? 0) - (stored?.createdAt ?? 0)).toBe(5_400_000);
    expect(run.stdout).toContain('1h 30m');
  });

  it('prints JSON with --json', async () => {
    const { cwd, dataDir } = workspace();
    const run = await keyhold(['claim', '--json', '--ttl', '2h', '--label', 'x'], { cwd });
    expect(run.code).toBe(0);
    const output = JSON.parse(run.stdout);
    const [stored] = storedClaims(dataDir);
    expect(output).toEqual({
      code: `${stored?.code.slice(0, 3)}-${stored?.code.slice(3)}`,
      scopeDir: cwd,
      label: 'x',
      createdAt: new Date(stored?.createdAt ?? 0).toISOString(),
      expiresAt: new Date(stored?.expiresAt ?? 0).toISOString(),
      expiresInSeconds: 7_200,
      header: `Mcp-Claim-Code: ${output.code}`,
    });
  });

  it.each(['30', '-1h', '0m', '366d', '1x'])(
    'refuses --ttl %s with a usage message and exit code 2',
    async (ttl) => {
      const { cwd, dataDir } = workspace();
      const run = await keyhold(['claim', `--ttl=${ttl}`], { cwd });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('Usage: keyhold claim');
      expect(existsSync(dataDir)).toBe(false);
    },
  );

  it('refuses a scope that does not exist with exit code 2', async () => {
    const { cwd } = workspace();
    const run = await keyhold(['claim', '--scope', 'missing'], { cwd });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('does not exist');
  });

  it('refuses an unknown flag with exit code 2', async () => {
    const { cwd } = workspace();
    expect((await keyhold(['claim', '--frobnicate'], { cwd })).code).toBe(2);
  });
});

describe('keyhold claim list: active codes in a table', () => {
  it('shows code, scope, label and time left; --json gives the same data', async () => {
    const { cwd } = workspace();
    await keyhold(['claim', '--label', 'first', '--ttl', '2h'], { cwd });
    await keyhold(['claim', '--ttl', '7d'], { cwd });
    const run = await keyhold(['claim', 'list'], { cwd });
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^CODE +SCOPE +LABEL +EXPIRES IN$/);
    expect(lines[1]).toMatch(new RegExp(`^[A-Z2-9]{3}-[A-Z2-9]{3} +${cwd} +first +1h 59m$`));
    expect(lines[2]).toMatch(new RegExp(`^[A-Z2-9]{3}-[A-Z2-9]{3} +${cwd} +- +6d 23h$`));
    const json = JSON.parse((await keyhold(['claim', 'list', '--json'], { cwd })).stdout);
    expect(json.claims.map((c: { label?: string }) => c.label)).toEqual(['first', undefined]);
  });

  it('accepts flags before the subcommand', async () => {
    const { cwd } = workspace();
    const dataDir = join(cwd, 'elsewhere');
    await keyhold(['claim', '--data-dir', dataDir, '--label', 'list'], { cwd });
    const run = await keyhold(['claim', '--data-dir', dataDir, '--json', 'list'], { cwd });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).claims.map((c: { label?: string }) => c.label)).toEqual(['list']);
  });

  it('says so when there are none', async () => {
    const { cwd } = workspace();
    const run = await keyhold(['claim', 'list'], { cwd });
    expect(run).toMatchObject({ code: 0, stdout: expect.stringContaining('No active claim codes') });
  });

  it('leaves out and purges expired codes', async () => {
    const { cwd, dataDir } = workspace();
    mkdirSync(dataDir, { mode: 0o700 });
    const now = Date.now();
    writeFileSync(
      join(dataDir, 'claims.json'),
      JSON.stringify({
        version: 1,
        claims: [
          { code: 'AAAAAA', scopeDir: cwd, createdAt: now - 10_000, expiresAt: now - 1 },
          { code: 'BBBBBB', scopeDir: cwd, createdAt: now, expiresAt: now + 3_600_000 },
        ],
      }),
      { mode: 0o600 },
    );
    const json = JSON.parse((await keyhold(['claim', 'list', '--json'], { cwd })).stdout);
    expect(json.claims.map((c: { code: string }) => c.code)).toEqual(['BBB-BBB']);
    expect(storedClaims(dataDir).map((c) => c.code)).toEqual(['BBBBBB']);
  });
});

describe('keyhold claim revoke: immediate', () => {
  it('removes the code, typed in any case with or without the dash', async () => {
    const { cwd, dataDir } = workspace();
    const created = JSON.parse((await keyhold(['claim', '--json'], { cwd })).stdout);
    const run = await keyhold(['claim', 'revoke', created.code.toLowerCase().replace('-', '')], { cwd });
    expect(run).toMatchObject({ code: 0, stdout: expect.stringContaining(`Revoked ${created.code}`) });
    expect(storedClaims(dataDir)).toEqual([]);
  });

  it('says an unknown code is unknown and exits 1', async () => {
    const { cwd } = workspace();
    const run = await keyhold(['claim', 'revoke', 'ABC-DEF'], { cwd });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('No active claim code ABC-DEF');
    const json = await keyhold(['claim', 'revoke', 'ABC-DEF', '--json'], { cwd });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({
      error: { code: 'unknown_code', message: 'No active claim code ABC-DEF.' },
    });
  });

  it('names a lookalike character and exits 2', async () => {
    const { cwd } = workspace();
    const run = await keyhold(['claim', 'revoke', 'AB0-DEF'], { cwd });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('"0"');
  });

  it('needs exactly one code', async () => {
    const { cwd } = workspace();
    expect((await keyhold(['claim', 'revoke'], { cwd })).code).toBe(2);
  });
});

describe('keyhold claim: where the store lives', () => {
  it('uses KEYHOLD_DATA_DIR, and --data-dir over it', async () => {
    const { cwd } = workspace();
    const fromEnv = join(cwd, 'env-dir');
    const fromFlag = join(cwd, 'flag-dir');
    await keyhold(['claim'], { cwd, env: { KEYHOLD_DATA_DIR: fromEnv } });
    await keyhold(['claim', '--data-dir', fromFlag], { cwd, env: { KEYHOLD_DATA_DIR: fromEnv } });
    expect(storedClaims(fromEnv)).toHaveLength(1);
    expect(storedClaims(fromFlag)).toHaveLength(1);
    expect(existsSync(join(cwd, '.keyhold'))).toBe(false);
  });

  it('reports a corrupt claim file, exits 1 and leaves the file alone', async () => {
    const { cwd, dataDir } = workspace();
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'claims.json'), '{ not json');
    for (const args of [['claim'], ['claim', 'list'], ['claim', 'revoke', 'ABC-DEF']]) {
      const run = await keyhold(args, { cwd });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('is corrupt');
    }
    expect(readFileSync(join(dataDir, 'claims.json'), 'utf8')).toBe('{ not json');
  });
});

// The example host keeps its claim codes in PostgreSQL when DATABASE_URL is set; so does the CLI, so a code
// made on any machine is honoured by every instance. Under CI=true a missing database fails the run.
const POSTGRES_URL = process.env['KEYHOLD_TEST_POSTGRES_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const postgres = await (async () => {
  const pool = createPostgresPool(POSTGRES_URL);
  try {
    await pool.query('SELECT 1');
    return pool;
  } catch (error) {
    await pool.end();
    if (process.env['CI'] === 'true') throw error;
    console.warn(`SKIPPED keyhold claim with DATABASE_URL: ${(error as Error).message}`);
    return undefined;
  }
})();
afterAll(() => postgres?.end());

describe.skipIf(!postgres)("keyhold claim with DATABASE_URL: the codes live in the host's database", () => {
  it('creates, lists and revokes in PostgreSQL and writes no claims.json', async () => {
    const schema = `keyhold_cli_claims_${randomBytes(5).toString('hex')}`;
    await postgres!.query(`CREATE SCHEMA ${schema}`);
    try {
      const env = {
        DATABASE_URL: `${POSTGRES_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`,
      };
      const { cwd, dataDir } = workspace();
      const created = await keyhold(['claim', '--json', '--label', 'db'], { cwd, env });
      expect(created.code).toBe(0);
      const { code } = JSON.parse(created.stdout) as { code: string };
      expect(existsSync(dataDir)).toBe(false);
      const rows = await postgres!.query(`SELECT scope_dir, label FROM ${schema}.keyhold_claims`);
      expect(rows.rows).toEqual([{ scope_dir: cwd, label: 'db' }]);
      const listed = await keyhold(['claim', 'list', '--json'], { cwd, env });
      expect(JSON.parse(listed.stdout).claims.map((claim: { code: string }) => claim.code)).toEqual([code]);
      expect((await keyhold(['claim', 'revoke', code], { cwd, env })).code).toBe(0);
      expect((await postgres!.query(`SELECT code FROM ${schema}.keyhold_claims`)).rows).toEqual([]);
    } finally {
      await postgres!.query(`DROP SCHEMA ${schema} CASCADE`);
    }
  });
});

describe('keyhold claim with DATABASE_URL: an unreachable database', () => {
  it('exits 1 with store_unavailable and never prints the URL or its password', async () => {
    const { cwd } = workspace();
    const env = { DATABASE_URL: 'postgres://keyhold:hunter2-secret@127.0.0.1:1/keyhold' };
    const run = await keyhold(['claim', '--json'], { cwd, env });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).error.code).toBe('store_unavailable');
    expect(`${run.stdout}${run.stderr}`).not.toContain('hunter2');
    const plain = await keyhold(['claim', 'list'], { cwd, env });
    expect(plain.code).toBe(1);
    expect(plain.stderr).toMatch(/keyhold claim: could not use the host's database \(/);
  });
});

describe('keyhold claim: --help everywhere', () => {
  it.each([
    [['claim', '--help'], 'Usage: keyhold claim ['],
    [['claim', 'list', '-h'], 'Usage: keyhold claim list'],
    [['claim', 'revoke', '--help'], 'Usage: keyhold claim revoke'],
  ])('%j prints its usage and exits 0', async (args, usage) => {
    const { cwd } = workspace();
    const run = await keyhold(args, { cwd });
    expect(run).toMatchObject({ code: 0, stdout: expect.stringContaining(usage) });
  });
});

describe('keyhold claim: many processes at once', () => {
  it('keeps every one of 20 concurrent creations: 20 records, valid JSON, mode 0600 in a 0700 directory', async () => {
    const { cwd, dataDir } = workspace();
    const runs = await Promise.all(
      Array.from({ length: 20 }, (_, i) => keyhold(['claim', '--json', '--label', `n${i}`], { cwd })),
    );
    expect(runs.map((run) => run.code)).toEqual(Array(20).fill(0));
    const stored = storedClaims(dataDir);
    expect(stored).toHaveLength(20);
    expect(new Set(stored.map((c) => c.code)).size).toBe(20);
    expect(stored.map((c) => c.label).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `n${i}`).sort());
    expect(statSync(join(dataDir, 'claims.json')).mode & 0o777).toBe(0o600);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(readdirSync(dataDir)).toEqual(['claims.json']);
  }, 60_000);
});

describe('keyhold claim: crashes leave a usable store', () => {
  it('keeps the file valid when creating processes are killed mid-write, and the next one succeeds', async () => {
    const { cwd, dataDir } = workspace();
    const runs = Array.from({ length: 10 }, (_, i) => {
      const child = execFile(process.execPath, [bin, 'claim'], {
        cwd,
        env: { PATH: process.env.PATH ?? '' },
      });
      const done = new Promise<void>((resolve) => child.on('exit', () => resolve()));
      // Spread over start-up and the write itself (one run takes a few hundred milliseconds here).
      setTimeout(() => child.kill('SIGKILL'), 150 + i * 50);
      return done;
    });
    await Promise.all(runs);
    const before = existsSync(join(dataDir, 'claims.json')) ? storedClaims(dataDir).length : 0;
    const after = await keyhold(['claim', '--json'], { cwd });
    expect(after.code).toBe(0);
    expect(storedClaims(dataDir)).toHaveLength(before + 1);
    expect(readdirSync(dataDir).filter((name) => name !== 'claims.json')).toEqual([]);
  }, 60_000);
});

describe('keyhold claim: colour only on a terminal and never with NO_COLOR', () => {
  function io(overrides: Partial<CliIo>, cwd: string): CliIo & { out: string } {
    const sink = {
      out: '',
      stdout: (text: string) => {
        sink.out += text;
      },
      stderr: () => {},
      env: {},
      cwd,
      stdoutIsTTY: false,
      ...overrides,
    };
    return sink;
  }

  it('styles the output on a TTY', async () => {
    const { cwd } = workspace();
    const tty = io({ stdoutIsTTY: true }, cwd);
    await claimCommand([], tty);
    expect(tty.out).toContain('\u001b[');
  });

  it('prints plain text with NO_COLOR or without a TTY', async () => {
    const { cwd } = workspace();
    const noColor = io({ stdoutIsTTY: true, env: { NO_COLOR: '1' } }, cwd);
    await claimCommand([], noColor);
    const piped = io({}, cwd);
    await claimCommand(['list'], piped);
    expect(noColor.out).not.toContain('\u001b[');
    expect(piped.out).not.toContain('\u001b[');
    expect(piped.out).toContain('CODE');
  });
});
