import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The root entry (schema, client, search, interop) must run in browsers and workers too (ARCHITECTURE:
// core packages stay runtime-neutral); only the server entry and the test helpers may need Node.
const src = new URL('../src/', import.meta.url);
const rootEntryFiles = readdirSync(src, { withFileTypes: true })
  .filter(
    (entry) =>
      entry.isFile() && entry.name.endsWith('.ts') && !['server.ts', 'testing.ts'].includes(entry.name),
  )
  .map((entry) => entry.name);

describe('the root entry is runtime-neutral', () => {
  it.each(rootEntryFiles)('%s imports no node: module and nothing from the server entry', (file) => {
    const text = readFileSync(new URL(file, src), 'utf8');
    expect(text).not.toMatch(/from 'node:/);
    expect(text).not.toMatch(/from '\.\/server\//);
  });

  it('covers the files of the root barrel', () => {
    expect(rootEntryFiles).toEqual(
      expect.arrayContaining(['index.ts', 'client.ts', 'provider.ts', 'search.ts']),
    );
  });
});
