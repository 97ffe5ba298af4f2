import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The repository root, as seen from this folder (`scripts/test`). */
export const repositoryRoot = join(import.meta.dirname, '..', '..');

export interface PackageManifest {
  name: string;
  /** A private package is never published: the packages that use it bundle it (devDependencies). */
  private?: boolean;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  devDependencies?: Record<string, string>;
}

export interface WorkspacePackage {
  /** The folder name under `packages/`, e.g. `oauth-core`. */
  folder: string;
  /** The absolute path of the package folder. */
  dir: string;
  manifest: PackageManifest;
  /** Absolute paths of the package's `src/**` TypeScript files (tests never live in `src/`). */
  sourceFiles: string[];
}

function typeScriptFilesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...typeScriptFilesUnder(path));
    else if (/\.(ts|mts|cts)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) found.push(path);
  }
  return found.sort();
}

/** Every published package under `packages/`, sorted by folder name. */
export function workspacePackages(): WorkspacePackage[] {
  const base = join(repositoryRoot, 'packages');
  return readdirSync(base, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(base, entry.name, 'package.json')))
    .map((entry) => {
      const dir = join(base, entry.name);
      return {
        folder: entry.name,
        dir,
        manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageManifest,
        sourceFiles: typeScriptFilesUnder(join(dir, 'src')),
      };
    })
    .sort((a, b) => a.folder.localeCompare(b.folder));
}

/** A path relative to `packages/`, the form every failure message and allow-list entry uses. */
export function displayPath(path: string): string {
  return relative(join(repositoryRoot, 'packages'), path);
}

/** `@keyhold/oauth-core/testing` → `@keyhold/oauth-core`; `zod/mini` → `zod`; relative paths stay as they are. */
export function packageNameOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}
