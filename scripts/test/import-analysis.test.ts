// The two pieces the boundary rules stand on: reading a file's imports, and finding cycles among them.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exampleCycle, importCycles, relativeImportGraph } from './import-cycles.js';
import { sourceImports } from './source-imports.js';

const dir = mkdtempSync(join(tmpdir(), 'keyhold-imports-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
}

describe('sourceImports reads what a file really imports', () => {
  const path = file(
    'reader.ts',
    [
      '/**',
      " * import { createServer } from '@keyhold/oauth-core'; (a TSDoc example, not an import)",
      ' */',
      "import type { A } from '@keyhold/a';",
      "import { type B, type C } from '@keyhold/b';",
      "import { type D, e } from '@keyhold/d';",
      "export type { F } from '@keyhold/f';",
      "export * from '@keyhold/g';",
      "import '@keyhold/side-effect';",
      "type H = typeof import('@keyhold/h');",
      "const i = await import('@keyhold/i');",
    ].join('\n'),
  );
  const found = sourceImports(path).map(({ specifier, typeOnly, line }) => ({ specifier, typeOnly, line }));

  it('ignores module names inside comments', () => {
    expect(found.map((entry) => entry.specifier)).not.toContain('@keyhold/oauth-core');
  });

  it('marks `import type`, all-`type` named imports, `export type` and `import()` types as type-only', () => {
    expect(found.filter((entry) => entry.typeOnly).map((entry) => entry.specifier)).toEqual([
      '@keyhold/a',
      '@keyhold/b',
      '@keyhold/f',
      '@keyhold/h',
    ]);
  });

  it('treats mixed imports, `export *`, side-effect imports and `import()` calls as runtime imports', () => {
    expect(found.filter((entry) => !entry.typeOnly).map((entry) => entry.specifier)).toEqual([
      '@keyhold/d',
      '@keyhold/g',
      '@keyhold/side-effect',
      '@keyhold/i',
    ]);
  });

  it('gives the 1-based line of each import', () => {
    expect(found.find((entry) => entry.specifier === '@keyhold/a')?.line).toBe(4);
  });
});

describe('importCycles finds every cycle among relative imports', () => {
  const a = file('cycle/a.ts', "import { b } from './b.js';\nexport const a = b;");
  const b = file('cycle/b.ts', "import type { C } from './nested/index.js';\nexport const b = 1;");
  const c = file('cycle/nested/index.ts', "import { a } from '../a.js';\nexport type C = typeof a;");
  const leaf = file('cycle/leaf.ts', "import { a } from './a.js';\nexport const leaf = a;");
  const self = file('cycle/self.ts', "import * as me from './self.js';\nexport const self = me;");
  const graph = relativeImportGraph([a, b, c, leaf, self].flatMap(sourceImports));

  it('reports each strongly connected group of files once, sorted, and a file importing itself', () => {
    expect(importCycles(graph)).toEqual([[a, b, c], [self]]);
  });

  it('resolves `.js` specifiers to `.ts` files and directories to their index', () => {
    expect([...graph.get(b)!]).toEqual([c]);
  });

  it('shows one concrete path around a cycle', () => {
    expect(exampleCycle(graph, [a, b, c])).toEqual([a, b, c, a]);
  });

  it('finds no cycle in an acyclic graph', () => {
    expect(importCycles(relativeImportGraph(sourceImports(leaf)))).toEqual([]);
  });
});
