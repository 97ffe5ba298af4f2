// The workspace packages and the built `.d.ts` behind each `exports` entry, as the API report and the
// examples check both read them.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Each published package under `packagesDir` (private ones, bundled into others, have no public API) with the
 * `.d.ts` file behind every `exports` subpath that has types, sorted by folder.
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
      const entries = Object.entries(manifest.exports ?? {})
        .filter(([, target]) => typeof target === 'object' && target !== null && 'types' in target)
        .map(([subpath, target]) => ({
          specifier: subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`,
          file: join(dir, target.types),
        }));
      return { folder: entry.name, name: manifest.name, dir, entries, private: manifest.private === true };
    })
    .filter((pkg) => !pkg.private)
    .sort((a, b) => a.folder.localeCompare(b.folder));
}
