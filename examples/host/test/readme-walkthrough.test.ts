import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostProcess, repoRoot, startHost } from './host-process.js';

// The root README's walk-through is run as written: its fenced `sh` blocks, in order, in one bash process
// (they share shell variables), against a fresh host, with only `node` and `bash` on the PATH. So the README
// cannot drift from the host, and it cannot come to need curl, openssl, basenc or jq again.

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const HEADING = '## A walk through every area';
const STAND_IN = '`npx -y pnpm@10.34.8` stands in for `pnpm`';
const FORBIDDEN_TOOLS = ['curl', 'wget', 'openssl', 'basenc', 'jq'] as const;

/** The walk-through section, from its heading to the next `## ` heading. */
function walkthroughSection(): string {
  const start = readme.indexOf(HEADING);
  if (start === -1) throw new Error(`README.md has no "${HEADING}" section`);
  const end = readme.indexOf('\n## ', start + HEADING.length);
  return readme.slice(start, end === -1 ? undefined : end);
}

const section = walkthroughSection();
/** The section's fenced `sh` blocks, in order. */
const blocks: string[] = [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);

function findOnPath(name: string): string {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (dir !== '' && existsSync(join(dir, name))) return join(dir, name);
  }
  throw new Error(`${name} is not on the PATH`);
}

describe('the README walk-through, as text', () => {
  it('goes through the areas in the order A, B, C, D, E, F', () => {
    expect([...section.matchAll(/^### ([A-Z])\. /gm)].map((match) => match[1])).toEqual([
      'A',
      'B',
      'C',
      'D',
      'E',
      'F',
    ]);
    // Every area has commands of its own.
    for (const area of section.split(/^### /m).slice(1)) expect(area).toContain('```sh');
  });

  it('uses Node only: no curl, wget, openssl, basenc or jq', () => {
    expect(blocks.length).toBeGreaterThan(10);
    for (const tool of FORBIDDEN_TOOLS) expect(section).not.toMatch(new RegExp(`\\b${tool}\\b`));
  });

  it('says that `npx -y pnpm@10.34.8` stands in for `pnpm` before any command uses plain `pnpm`', () => {
    const standIn = readme.indexOf(STAND_IN);
    expect(standIn).toBeGreaterThan(-1);
    // A plain pnpm command: in a code span (`pnpm build`) or at the start of a line in a block.
    const plain = [...readme.matchAll(/`pnpm [a-z]|^pnpm /gm)].map((match) => match.index);
    for (const index of plain) expect(index).toBeGreaterThan(standIn);
    for (const block of blocks) expect(block).not.toMatch(/(?<!npx -y )\bpnpm\b/);
  });
});

describe('the README walk-through, run against a fresh host with only node and bash on the PATH', () => {
  let host: HostProcess;
  let work: string;
  let bin: string;
  const segments: string[] = [];
  let exit: { code: number | null; output: string };
  // The second walk, pasted again into a new shell against the same host (its stored grant and consent).
  const again: string[] = [];
  let exitAgain: { code: number | null; output: string };

  /** Runs `script` in bash at the repository root, as a reader does; stdout and stderr in one stream. */
  function bash(
    script: string,
    env: Record<string, string>,
  ): Promise<{ code: number | null; output: string }> {
    const file = join(work, `script-${Date.now()}.sh`);
    writeFileSync(file, script);
    const child = spawn(join(bin, 'bash'), [file], {
      cwd: repoRoot,
      env: { PATH: bin, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    return new Promise((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code) => resolve({ code, output }));
    });
  }

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'keyhold-walkthrough-'));
    bin = join(work, 'bin');
    // The reader's machine as the README promises it: Node.js (and a shell), nothing else.
    mkdirSync(bin);
    symlinkSync(process.execPath, join(bin, 'node'));
    symlinkSync(findOnPath('bash'), join(bin, 'bash'));
    // Single-user mode, as `pnpm run quickstart` starts it; a free port, which the walk-through reaches
    // through `PORT` (its default base URL is http://127.0.0.1:${PORT:-8787}).
    host = await startHost({ SVC_SINGLE_USER: '1' });
    const port = new URL(host.url).port;
    const script = [
      'set -euo pipefail',
      'exec 2>&1',
      ...blocks.map((block, index) => `printf '\\n### block %d\\n' ${index}\n${block}`),
    ].join('\n');
    exit = await bash(script, { PORT: port, KEYHOLD_DATA_DIR: host.dataDir });
    segments.push(...exit.output.split(/^### block \d+$/m).slice(1));
    exitAgain = await bash(script, { PORT: port, KEYHOLD_DATA_DIR: host.dataDir });
    again.push(...exitAgain.output.split(/^### block \d+$/m).slice(1));
  }, 240_000);

  afterAll(async () => {
    await host?.stop({ removeData: true });
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** The output of the one block whose source `matches`, in the first walk (or the second). */
  function outputOf(matches: (source: string) => boolean, walk: readonly string[] = segments): string {
    const found = blocks.flatMap((block, index) => (matches(block) ? [index] : []));
    expect(found, 'exactly one README block matches').toHaveLength(1);
    return walk[found[0]!] ?? '';
  }
  const containing =
    (...fragments: string[]) =>
    (source: string) =>
      fragments.every((fragment) => source.includes(fragment));

  it('finds none of the tools the walk-through must not need', async () => {
    const probe = await bash(
      [...FORBIDDEN_TOOLS.map((tool) => `command -v ${tool} && exit 1`), 'exit 0', ''].join('\n'),
      {},
    );
    expect(probe).toEqual({ code: 0, output: '' });
  });

  it('runs every block to the end', () => {
    expect(exit.code, exit.output).toBe(0);
    expect(segments).toHaveLength(blocks.length);
  });

  it('A: discovery, registration, consent, token, introspection, refresh and revocation', () => {
    expect(outputOf(containing('/.well-known/oauth-authorization-server/tenant/demo'))).toContain(
      `issuer: '${host.url}/tenant/demo'`,
    );
    expect(outputOf(containing('/tenant/demo/register'))).toMatch(/^201 \{[^}]*client_name: 'walk-through'/m);
    expect(outputOf(containing('decision: "approve"'))).toMatch(
      /^POST \/tenant\/demo\/consent → 302 http:\/\/127\.0\.0\.1:9\/cb\?code=[\w-]+&state=xyz/m,
    );
    const tokens = /^200 \{\s+access_token: 'eyJ[\w.-]+',[^}]*refresh_token: '[\w-]+'/m;
    expect(outputOf(containing('grant_type: "authorization_code"'))).toMatch(tokens);
    expect(outputOf(containing('/tenant/demo/introspect'))).toMatch(
      /^200 \{\s+active: true,[^}]*sub: 'owner',[^}]*scope: 'mcp:tools'/m,
    );
    expect(outputOf(containing('TOKENS=$(', 'grant_type: "refresh_token"'))).toMatch(tokens);
    const revoked = outputOf(containing('/tenant/demo/revoke'));
    expect(revoked).toContain('POST /tenant/demo/revoke → 200');
    expect(revoked).toMatch(/POST \/tenant\/demo\/token → 400 \{\s+error: 'invalid_grant'/);
  });

  it('B: who_am_i asks for the provider token with -32042, the link is followed, and the retry answers', () => {
    const initialized = outputOf(containing('method: "initialize"'));
    expect(initialized).toContain('"protocolVersion":"2025-11-25"');
    expect(initialized).toContain('"name": "who_am_i"');
    const asked = outputOf(containing('LINK=$('));
    expect(asked).toContain('"code": -32042');
    expect(asked).toContain(`"url": "${host.url}/auth/oauth/connect?`);
    const browser = outputOf(containing('process.env.LINK'));
    expect(browser).toContain(`GET ${host.url}/auth/oauth/connect?`);
    expect(browser).toMatch(/^GET \S+\/tenant\/provider\/authorize\?\S+ → 302$/m);
    expect(browser).toMatch(/^GET \S+\/auth\/oauth\/callback\?\S+ → 200$/m);
    const answered = outputOf(
      (source) => source.trim() === `mcp tools/call '{"name":"who_am_i","arguments":{}}'`,
    );
    expect(answered).toContain(`Connected to ${host.url}/tenant/provider as owner`);
  });

  const toolNames = (output: string) => [...output.matchAll(/"name": "(\w+)"/g)].map((match) => match[1]);

  it('C: a code from `keyhold claim` narrows the tools to one directory; revoked, it no longer narrows', () => {
    const narrowed = outputOf(containing('keyhold claim --scope'));
    expect(narrowed).toContain('tools/list → 200');
    expect(toolNames(narrowed)).toEqual(['add_note', 'list_notes']);
    // The specification's rule: a revoked code "is not an error", the request is served unscoped.
    const revoked = outputOf(containing('keyhold claim revoke'));
    expect(revoked).toContain('tools/list → 200');
    expect(toolNames(revoked).sort()).toEqual(['add_note', 'list_notes', 'recent_pushes', 'who_am_i']);
  });

  it('D: both webhooks answer', () => {
    const answered = outputOf(containing('/webhook/notes/handleIncoming'));
    expect(answered).toContain(
      'POST /webhook/notes/handleIncoming → 200 { ok: true, result: { accepted: true, count: 1 } }',
    );
    expect(answered).toContain(
      'POST /webhook/activity/github/push → 200 { ok: true, result: { recorded: 1 } }',
    );
  });

  it('E: the registry finds providers and `keyhold providers add` prints the mcpServers block', () => {
    const listed = outputOf(containing('/api/providers/search'));
    expect(listed).toContain("id: 'git'");
    expect(listed).toContain('"mcpServers"');
    expect(listed).toContain('"filesystem"');
  });

  it('F: the connected-apps page lists the grant and recent activity, revokes it, keyhold events shows the brokered login, and the next MCP call is refused', () => {
    const revoked = outputOf(containing('/tenant/demo/connected-apps'));
    expect(revoked).toContain('GET /tenant/demo/connected-apps → 200 lists walk-through');
    expect(revoked).toContain(
      `POST /tenant/demo/connected-apps → 303 ${host.url}/tenant/demo/connected-apps?notice=revoked`,
    );
    expect(revoked).toContain('The application was disconnected.');
    // Recent activity on the same page: the person's own decisions in words, the provider login of B included.
    expect(revoked).toMatch(/^Recent activity: .*You allowed an application/m);
    expect(revoked).toMatch(/^Recent activity: .*You connected another service for a tool/m);
    const timeline = outputOf(containing('keyhold events --user owner'));
    for (const reason of [
      'broker.login_started',
      'broker.login_completed',
      'consent.approved',
      'grant.revoked.user',
    ]) {
      expect(timeline).toContain(reason);
    }
    expect(outputOf(containing('id: 3, method: "tools/list"'))).toMatch(
      /^POST \/tenant\/demo\/mcp tools\/list → 401 Bearer .*error="invalid_token"/m,
    );
  });

  describe('run a second time against the same host, as a reader pasting it again does', () => {
    it('runs every block to the end again', () => {
      expect(exitAgain.code, exitAgain.output).toBe(0);
      expect(again).toHaveLength(blocks.length);
    });

    it('B: the provider token is already stored, so who_am_i answers at once and there is no link to follow', () => {
      const asked = outputOf(containing('LINK=$('), again);
      expect(asked).not.toContain('-32042');
      expect(asked).toContain(`Connected to ${host.url}/tenant/provider as owner`);
      expect(outputOf(containing('process.env.LINK'), again)).toContain(
        'No link: the provider token is already stored.',
      );
      const answered = outputOf(
        (source) => source.trim() === `mcp tools/call '{"name":"who_am_i","arguments":{}}'`,
        again,
      );
      expect(answered).toContain(`Connected to ${host.url}/tenant/provider as owner`);
    });

    it('F holds again: the new grant is revoked and its token refused', () => {
      expect(outputOf(containing('/tenant/demo/connected-apps'), again)).toContain('?notice=revoked');
      expect(outputOf(containing('id: 3, method: "tools/list"'), again)).toContain('→ 401');
    });

    it('A and C hold again: a new client gets tokens, a new code narrows the tools', () => {
      expect(outputOf(containing('/tenant/demo/register'), again)).toMatch(/^201 \{/m);
      expect(toolNames(outputOf(containing('keyhold claim --scope'), again))).toEqual([
        'add_note',
        'list_notes',
      ]);
    });
  });
});
