import { describe, expect, it } from 'vitest';
import manifest from '../package.json' with { type: 'json' };
import * as main from '../src/index.js';
import * as server from '../src/server.js';
import * as serverJson from '../src/server-json.js';

// Each name has one home: the registry API server under `./server`, the client at the root, and the rate
// limiter where every Keyhold limit lives, `@keyhold/core`. The official-registry interop has its own secondary
// entry, `./server-json`; the schema and search stay inside the package.
describe('each export comes from exactly one entry', () => {
  it('the server entry exports the registry API server and nothing else', () => {
    expect(Object.keys(server).sort()).toEqual(['createRegistryApi']);
  });

  it('the main entry is the client and its error: no server code, no schema or server.json internals', () => {
    expect(Object.keys(main).sort()).toEqual(['RegistryError', 'createRegistryClient']);
  });

  it('the server-json entry exports the three official-registry conversions and nothing else', () => {
    expect(Object.keys(serverJson).sort()).toEqual([
      'importOfficialServerList',
      'providerToServerJson',
      'serverJsonToProvider',
    ]);
  });

  it('the package has no testing entry re-exporting @keyhold/core/testing', () => {
    expect(Object.keys(manifest.exports)).toEqual([
      '.',
      './server',
      './server-json',
      './providers.json',
      './package.json',
    ]);
  });
});
