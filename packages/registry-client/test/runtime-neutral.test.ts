import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Every file outside the server entry (client, schema, search, server.json interop) must run in browsers and
// workers too (ARCHITECTURE: core packages stay runtime-neutral); only `server.ts` and `server/` may need Node.
const src = new URL('../src/', import.meta.url);
const rootEntryFiles = readdirSync(src, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts') && file !== 'server.ts' && !file.startsWith('server/'))
  .sort();

describe('the root entry is runtime-neutral', () => {
  it.each(rootEntryFiles)('%s imports no node: module and nothing from the server entry', (file) => {
    const text = readFileSync(new URL(file, src), 'utf8');
    expect(text).not.toMatch(/from 'node:/);
    expect(text).not.toMatch(/from '(\.\.?\/)+server(\/|\.js)/);
  });

  it('covers the files of the root barrel', () => {
    expect(rootEntryFiles).toEqual(
      expect.arrayContaining([
        'index.ts',
        'client.ts',
        'mcp-provider.ts',
        'search.ts',
        'official-registry/server-json.ts',
      ]),
    );
  });
});
