import { describe, expect, it } from 'vitest';
import manifest from '../package.json' with { type: 'json' };
import * as main from '../src/index.js';
import * as server from '../src/server.js';

// Each name has one home: the registry API server under `./server`, everything a client needs at the root,
// and the rate limiter where every Keyhold limit lives, `@keyhold/core`.
describe('each export comes from exactly one entry', () => {
  it('the server entry exports the registry API server and nothing else', () => {
    expect(Object.keys(server).sort()).toEqual(['createRegistryApi']);
  });

  it('the main entry has no server code', () => {
    expect(Object.keys(main)).not.toContain('createRegistryApi');
    expect(Object.keys(main)).not.toContain('createMemoryRateLimiter');
  });

  it('the package has no testing entry re-exporting @keyhold/core/testing', () => {
    expect(Object.keys(manifest.exports)).toEqual(['.', './server', './providers.json', './package.json']);
  });
});
