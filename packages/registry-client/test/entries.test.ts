import { describe, expect, it } from 'vitest';
import manifest from '../package.json' with { type: 'json' };
import * as main from '../src/index.js';
import * as server from '../src/server.js';

// Each name has one home: the registry API server under `./server`, the client at the root, and the rate
// limiter where every Keyhold limit lives, `@keyhold/core`. The schema, search and server.json conversion
// stay inside the package.
describe('each export comes from exactly one entry', () => {
  it('the server entry exports the registry API server and nothing else', () => {
    expect(Object.keys(server).sort()).toEqual(['createRegistryApi']);
  });

  it('the main entry is the client and its error: no server code, no schema or server.json internals', () => {
    expect(Object.keys(main).sort()).toEqual(['RegistryError', 'createRegistryClient']);
  });

  it('the package has no testing entry re-exporting @keyhold/core/testing', () => {
    expect(Object.keys(manifest.exports)).toEqual(['.', './server', './providers.json', './package.json']);
  });
});
