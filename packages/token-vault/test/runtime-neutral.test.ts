import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const sourceRoot = new URL('../src/', import.meta.url);
const sources = readdirSync(sourceRoot, { recursive: true, encoding: 'utf8' }).filter((file) =>
  file.endsWith('.ts'),
);

describe('the token vault runs on workers without nodejs_compat: no Node built-in, no Buffer (issue 28)', () => {
  it('has source files to check', () => {
    expect(sources).toEqual(expect.arrayContaining(['vault/sealed-value.ts', 'vault/local-vault.ts']));
  });

  it.each(sources)('%s names neither Buffer nor a node: module', (file) => {
    const source = readFileSync(new URL(file, sourceRoot), 'utf8');
    expect(source).not.toMatch(/\bBuffer\b/);
    expect(source).not.toMatch(/from ['"]node:|import\(['"]node:|require\(/);
  });
});
