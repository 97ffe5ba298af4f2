import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const srcDir = new URL('../src/', import.meta.url).pathname;
// The CIMD fetcher, metrics and federated login live beside the server and have their own needs (a safe
// fetcher talks to the network); these rules are about the authorization server itself.
const OTHER_PARTS = ['cimd', 'metrics', 'federated'].map((dir) => join(srcDir, dir));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return OTHER_PARTS.includes(path) ? [] : sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('package boundaries (ARCHITECTURE.md)', () => {
  it('no source file imports node:http, an adapter, a store or another area package', () => {
    for (const file of sources(srcDir)) {
      const text = readFileSync(file, 'utf8');
      expect(text, file).not.toMatch(/from 'node:(http|https|net)'/);
      expect(text, file).not.toMatch(
        /from '@keyhold\/(adapter-|store-|token-vault|claim-codes|webhook-kit|registry-client|cli)/,
      );
    }
  });

  it('handlers never read process.env', () => {
    for (const file of sources(srcDir)) expect(readFileSync(file, 'utf8'), file).not.toContain('process.env');
  });

  it('the barrel has no export * and no default export', () => {
    const barrel = readFileSync(join(srcDir, 'index.ts'), 'utf8');
    expect(barrel).not.toMatch(/export \*/);
    expect(barrel).not.toMatch(/export default/);
  });
});
