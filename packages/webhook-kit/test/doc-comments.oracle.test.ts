import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseDocumentedMethods } from '../src/doc-comments.js';
import { parseWithTypescript } from './support/typescript-reader.js';

const repository = fileURLToPath(new URL('../../../', import.meta.url));

/** Every TypeScript and JavaScript source of the monorepo (not dependencies, not build output). */
function corpus(): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (['node_modules', 'dist', '.git', '.keyhold', 'coverage'].includes(entry.name)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(?:[cm]?[jt]s)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(path);
    }
  };
  for (const top of ['packages', 'examples', 'scripts', 'test-support', 'conformance']) {
    walk(join(repository, top));
  }
  return files;
}

describe('doc comments: the acorn reader agrees with the TypeScript compiler it replaced', () => {
  it('lists the same declarations, classes, lines and @webhook tags for every source of this repository', () => {
    const files = corpus();
    expect(files.length).toBeGreaterThan(200);
    const disagreements: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const expected = parseWithTypescript(file, text);
      let actual: unknown;
      try {
        actual = parseDocumentedMethods(file, text);
      } catch (error) {
        // Discovery never parses a file that does not mention @webhook, so a refusal (see the README's
        // known limits) matters only for one that does.
        if (!text.includes('@webhook')) continue;
        actual = String(error);
      }
      try {
        expect(actual).toEqual(expected);
      } catch {
        disagreements.push(relative(repository, file));
      }
    }
    expect(disagreements).toEqual([]);
  }, 120_000);
});
