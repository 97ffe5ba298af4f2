import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, unknown>;
  optionalDependencies?: Record<string, string>;
};

describe('package.json: installs next to any TypeScript (5, 6 and the native 7)', () => {
  it('names typescript in no dependency field that an install resolves', () => {
    for (const field of [
      'dependencies',
      'peerDependencies',
      'peerDependenciesMeta',
      'optionalDependencies',
    ] as const) {
      expect(Object.keys(manifest[field] ?? {}), field).not.toContain('typescript');
    }
  });

  it('reads doc comments with acorn and its TypeScript plugin, which depend on no typescript', () => {
    expect(Object.keys(manifest.dependencies ?? {}).sort()).toEqual([
      '@keyhold/core',
      '@sveltejs/acorn-typescript',
      'acorn',
    ]);
    for (const name of ['acorn', '@sveltejs/acorn-typescript']) {
      const dependency = JSON.parse(
        readFileSync(new URL(`../node_modules/${name}/package.json`, import.meta.url), 'utf8'),
      ) as { dependencies?: Record<string, string>; peerDependencies?: Record<string, string> };
      expect(Object.keys({ ...dependency.dependencies, ...dependency.peerDependencies }), name).not.toContain(
        'typescript',
      );
    }
  });
});
