import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('../', import.meta.url));
const coreDir = fileURLToPath(new URL('../../core/', import.meta.url));

/** The newest typescript 7 on the registry, or undefined when there is none (or no registry). */
function typescript7(): string | undefined {
  try {
    const versions = JSON.parse(
      execFileSync('npm', ['view', 'typescript@>=7.0.0 <8', 'version', '--json'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
        timeout: 30_000,
      }),
    ) as string | string[];
    const list = (Array.isArray(versions) ? versions : [versions]).filter((v) => !v.includes('-'));
    return list.at(-1);
  } catch {
    return undefined;
  }
}

// Packs, reaches the npm registry and installs: 13–18 s on the 2-core machine. It runs with every test run
// (the registry is the one network CI has), so an install regression cannot land.
const version = typescript7();
const work = mkdtempSync(join(tmpdir(), 'webhook-kit-install-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// Packs the BUILT package (run `pnpm run build` first) with pnpm, which turns `workspace:^` into versions,
// and installs it with plain npm, as a user would, next to the native TypeScript 7.
describe('install: next to TypeScript 7 (the native compiler, no JS API)', () => {
  it(`npm install @keyhold/webhook-kit typescript@${version} succeeds and reads @webhook tags`, () => {
    expect(version, 'typescript@7 on the npm registry').toBeDefined();
    expect(existsSync(join(packageDir, 'dist/index.js')), 'build webhook-kit first').toBe(true);
    const pack = (dir: string): string => {
      execFileSync('npx', ['-y', 'pnpm@10.34.8', 'pack', '--pack-destination', work], {
        cwd: dir,
        stdio: 'ignore',
      });
      const name = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name as string;
      const tarball = readdirSync(work).find((file) =>
        file.startsWith(`${name.slice(1).replace('/', '-')}-`),
      );
      if (tarball === undefined) throw new Error(`no tarball for ${name}`);
      return join(work, tarball);
    };
    const core = pack(coreDir);
    const kit = pack(packageDir);
    const app = join(work, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), '{ "name": "app", "private": true, "type": "module" }\n');
    // Without --legacy-peer-deps or --force: an ERESOLVE peer conflict would fail this command.
    execFileSync('npm', ['install', '--no-audit', '--no-fund', core, kit, `typescript@${version}`], {
      cwd: app,
      stdio: 'pipe',
      timeout: 120_000,
    });
    const installed = JSON.parse(readFileSync(join(app, 'node_modules/typescript/package.json'), 'utf8'));
    expect(installed.version).toBe(version);
    writeFileSync(
      join(app, 'github.ts'),
      'export class GitHub {\n  /** @webhook github/push */\n  onPush<const T>(event: T): T {\n    return event;\n  }\n}\n',
    );
    // The module's instance is a plain JavaScript class of the same name: its tag is read from github.ts.
    const output = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        [
          "import { createWebhookHandler } from '@keyhold/webhook-kit';",
          'class GitHub { onPush(event) { return event; } }',
          "const modules = [{ toolModuleId: 'gh', displayName: 'GitHub', sourcePath: 'github.ts', instance: new GitHub() }];",
          'console.log(JSON.stringify(createWebhookHandler({ modules }).routes));',
        ].join('\n'),
      ],
      { cwd: app, encoding: 'utf8' },
    );
    expect(JSON.parse(output)).toEqual([
      {
        toolModuleId: 'gh',
        method: 'onPush',
        path: 'github/push',
        key: 'gh/github/push',
        source: 'webhook-tag',
      },
    ]);
  }, 180_000);
});
