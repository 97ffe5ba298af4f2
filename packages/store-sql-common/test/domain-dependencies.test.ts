import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { expectDomainPackagesTypeOnly } from '../src/domain-dependencies.js';
import { runtimeImports } from '../src/testing.js';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('store-sql-common uses the domain packages for types only', () => {
  // Its own build comes first in every store build, so its dist/ is there whenever a store test runs.
  it('imports none of oauth-core, token-vault and claim-codes at run time', () => {
    // The scan sees real imports: the testing entry's vitest.
    expect(runtimeImports(packageDir)).toEqual(['vitest']);
    expectDomainPackagesTypeOnly(packageDir);
  });
});
