import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuiltPackage, expectDomainPackagesTypeOnly } from '@keyhold/store-sql-common/testing';
import { beforeAll, describe, it } from 'vitest';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('the domain packages are types only: optional peers, never imported at run time', () => {
  beforeAll(() => ensureBuiltPackage(packageDir), 120_000);
  it('the built package imports none of oauth-core, token-vault and claim-codes', () => {
    expectDomainPackagesTypeOnly(packageDir);
  });
});
