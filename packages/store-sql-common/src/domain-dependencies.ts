import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { expect } from 'vitest';

/** The packages whose storage interfaces the SQL stores implement, and use for types only. */
export const DOMAIN_PACKAGES: readonly string[] = [
  '@keyhold/claim-codes',
  '@keyhold/oauth-core',
  '@keyhold/token-vault',
];

/**
 * Checks that a store's built package imports no domain package at run time and lists each as an optional
 * peer, never a dependency: a host that keeps only claim codes in it does not install the OAuth server.
 *
 * @example
 * ```ts
 * beforeAll(() => ensureBuiltPackage(packageDir), 120_000);
 * it('uses the domain packages for types only', () => expectDomainPackagesTypeOnly(packageDir));
 * ```
 */
export function expectDomainPackagesTypeOnly(packageDir: string): void {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
    peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  };
  const imported = runtimeImports(packageDir);
  for (const name of DOMAIN_PACKAGES) {
    expect(manifest.dependencies ?? {}, name).not.toHaveProperty([name]);
    expect(manifest.peerDependenciesMeta?.[name], name).toEqual({ optional: true });
    expect(imported, name).not.toContain(name);
  }
}

/**
 * The packages a built package imports at run time: every bare specifier (not relative, not Node's own) in the
 * static and dynamic imports of its `dist/*.js`, without subpaths. A test pins what must stay type-only.
 *
 * @example
 * ```ts
 * expect(runtimeImports(packageDir)).not.toContain('@keyhold/oauth-core');
 * ```
 */
export function runtimeImports(packageDir: string): string[] {
  const dist = join(packageDir, 'dist');
  const found = new Set<string>();
  for (const file of readdirSync(dist).filter((name) => name.endsWith('.js'))) {
    const code = readFileSync(join(dist, file), 'utf8');
    for (const match of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"'./][^"']*)["']/g)) {
      const specifier = match[1]!;
      if (specifier.startsWith('node:') || builtinModules.includes(specifier)) continue;
      const parts = specifier.split('/');
      found.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!);
    }
  }
  return [...found].sort();
}
