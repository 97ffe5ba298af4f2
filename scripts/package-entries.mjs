// The published workspace packages and the built `.d.ts` behind each `exports` entry, as the API report
// and the examples check both read them. A private package (`"private": true`, bundled into the packages
// that use it) has no public API and no build of its own, so it is left out.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Each published (not private) package under `packagesDir` with the `.d.ts` file behind every `exports`
 * subpath that has types, sorted by folder.
 *
 * @param {string} packagesDir
 * @returns {{ folder: string, name: string, dir: string, entries: { specifier: string, file: string }[] }[]}
 */
export function packageEntries(packagesDir) {
  return readdirSync(packagesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(packagesDir, entry.name, 'package.json')))
    .map((entry) => {
      const dir = join(packagesDir, entry.name);
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      if (manifest.private) return undefined;
      const entries = Object.entries(manifest.exports ?? {})
        .filter(([, target]) => typeof target === 'object' && target !== null && 'types' in target)
        .map(([subpath, target]) => ({
          specifier: subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`,
          file: join(dir, target.types),
        }));
      return { folder: entry.name, name: manifest.name, dir, entries };
    })
    .filter((pkg) => pkg !== undefined)
    .sort((a, b) => a.folder.localeCompare(b.folder));
}
