import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClaimCodesError } from '../src/errors.js';
import { isFileInScope, isPathInScope, resolveScopeDir } from '../src/scope.js';

describe('scope matching: the path-separator guard', () => {
  it('matches the directory itself and everything below it', () => {
    expect(isPathInScope('/workspace/proj', '/workspace/proj')).toBe(true);
    expect(isPathInScope('/workspace/proj', '/workspace/proj/a/b.ts')).toBe(true);
    expect(isPathInScope('/workspace/proj/', '/workspace/proj/a.ts')).toBe(true);
  });

  it('does not match a sibling whose name starts the same', () => {
    expect(isPathInScope('/workspace/proj', '/workspace/projX/foo')).toBe(false);
    expect(isPathInScope('/workspace/proj', '/workspace/proj.ts')).toBe(false);
  });

  it('does not match the parent or a path that climbs out with ..', () => {
    expect(isPathInScope('/workspace/proj', '/workspace')).toBe(false);
    expect(isPathInScope('/workspace/proj', '/workspace/proj/../other/a.ts')).toBe(false);
  });

  it('lets the root directory hold every path', () => {
    expect(isPathInScope('/', '/etc/passwd')).toBe(true);
  });
});

describe('scope matching: files are resolved through symlinks first', () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'claim-scope-')));
  const scope = join(root, 'proj');
  const outside = join(root, 'outside');
  mkdirSync(scope);
  mkdirSync(outside);
  writeFileSync(join(scope, 'inside.ts'), '');
  writeFileSync(join(outside, 'secret.ts'), '');
  symlinkSync(join(outside, 'secret.ts'), join(scope, 'link-out.ts'));
  symlinkSync(join(scope, 'inside.ts'), join(outside, 'link-in.ts'));

  it('passes a real file inside the scope', () => {
    expect(isFileInScope(scope, join(scope, 'inside.ts'))).toBe(true);
  });

  it('refuses a link inside the scope that points outside it', () => {
    expect(isFileInScope(scope, join(scope, 'link-out.ts'))).toBe(false);
  });

  it('passes a link outside the scope that points inside it', () => {
    expect(isFileInScope(scope, join(outside, 'link-in.ts'))).toBe(true);
  });

  it('puts a file that does not exist in no scope', () => {
    expect(isFileInScope(scope, join(scope, 'missing.ts'))).toBe(false);
  });
});

describe('scope directories: absolute and resolved through symlinks at creation', () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'claim-scopedir-')));
  mkdirSync(join(root, 'real'));
  symlinkSync(join(root, 'real'), join(root, 'alias'));
  writeFileSync(join(root, 'file.txt'), '');

  it('resolves a symlinked directory to its target', async () => {
    expect(await resolveScopeDir(join(root, 'alias'))).toBe(join(root, 'real'));
  });

  it('makes a relative directory absolute against the working directory', async () => {
    expect(await resolveScopeDir('.')).toBe(realpathSync(process.cwd()));
  });

  it('refuses a directory that does not exist, and a file', async () => {
    await expect(resolveScopeDir(join(root, 'nope'))).rejects.toMatchObject({ code: 'ERR_INVALID_SCOPE' });
    await expect(resolveScopeDir(join(root, 'file.txt'))).rejects.toBeInstanceOf(ClaimCodesError);
  });
});
