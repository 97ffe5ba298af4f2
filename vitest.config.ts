import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = dirname(fileURLToPath(import.meta.url));

/** Every workspace folder with a `test/` directory becomes one vitest project named after its folder. */
function workspaceProjects(): { name: string; dir: string }[] {
  const found: { name: string; dir: string }[] = [];
  for (const group of ['packages', 'examples']) {
    const base = join(root, group);
    if (!existsSync(base)) continue;
    for (const entry of readdirSync(base, { withFileTypes: true })) {
      if (entry.isDirectory() && existsSync(join(base, entry.name, 'test'))) {
        found.push({
          name: `${group === 'examples' ? 'example-' : ''}${entry.name}`,
          dir: join(base, entry.name),
        });
      }
    }
  }
  // The HTTP benchmark package: its tests cover the pure pieces (tables, markdown), never the HTTP runs.
  if (existsSync(join(root, 'bench', 'test'))) found.push({ name: 'bench', dir: join(root, 'bench') });
  // The real-runtime checks (Node, Bun, Deno, workerd) live in their own private folder.
  if (existsSync(join(root, 'runtimes', 'test')))
    found.push({ name: 'runtimes', dir: join(root, 'runtimes') });
  // Repository-wide checks (package boundaries, import cycles) that belong to no single package.
  if (existsSync(join(root, 'scripts', 'test'))) found.push({ name: 'scripts', dir: join(root, 'scripts') });
  return found;
}

export default defineConfig({
  resolve: {
    // Tests import sibling packages from source, so a test run never sees a stale `dist/`.
    // Child-process tests (CLI, example host) run the built output instead.
    alias: [
      { find: /^@keyhold\/([a-z-]+)$/, replacement: `${root}/packages/$1/src/index.ts` },
      { find: /^@keyhold\/([a-z-]+)\/([a-z-]+)$/, replacement: `${root}/packages/$1/src/$2.ts` },
    ],
  },
  test: {
    projects: workspaceProjects().map(({ name, dir }) => ({
      extends: true,
      test: {
        name,
        root: dir,
        include: ['test/**/*.test.ts'],
        benchmark: { include: ['bench/**/*.bench.ts'] },
        testTimeout: 20_000,
        hookTimeout: 30_000,
      },
    })),
  },
});
