import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuiltPackage, runtimeImports } from '@keyhold/store-sql-common/testing';
import { beforeAll, describe, expect, it } from 'vitest';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('store-sql-common is compiled in: it is private, so a host never installs it', () => {
  beforeAll(() => ensureBuiltPackage(packageDir), 120_000);

  it('the built package imports @keyhold/store-sql-common nowhere at run time', () => {
    expect(runtimeImports(packageDir)).not.toContain('@keyhold/store-sql-common');
  });

  it('package.json lists it as a dev dependency only, never one a host installs', () => {
    const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as Record<
      string,
      Record<string, string> | undefined
    >;
    expect(manifest['dependencies']).not.toHaveProperty(['@keyhold/store-sql-common']);
    expect(manifest['peerDependencies']).not.toHaveProperty(['@keyhold/store-sql-common']);
    expect(manifest['devDependencies']).toHaveProperty(['@keyhold/store-sql-common']);
  });
});
