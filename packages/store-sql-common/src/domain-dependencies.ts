import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { runtimeImports } from './testing.js';

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
