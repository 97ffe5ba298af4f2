import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadBundledProviders } from '../src/bundled-providers.js';
import { parseProviderMap } from '../src/mcp-provider.js';

const file = JSON.parse(readFileSync(new URL('../providers.json', import.meta.url), 'utf8')) as Record<
  string,
  unknown
>;

describe('the bundled providers file', () => {
  it('holds at least 25 providers that pass the schema, keyed by id', () => {
    const providers = parseProviderMap(file);
    expect(Object.keys(providers).length).toBeGreaterThanOrEqual(25);
  });

  it('is what loadBundledProviders returns, frozen', () => {
    const providers = loadBundledProviders();
    expect(Object.keys(providers).sort()).toEqual(Object.keys(file).sort());
    expect(Object.isFrozen(providers)).toBe(true);
  });

  it('uses HTTPS for every remote endpoint and docs link', () => {
    for (const provider of Object.values(loadBundledProviders())) {
      if (provider.http) {
        expect(provider.http.url, provider.id).toMatch(/^https:\/\//);
        expect(provider.http.docs, provider.id).toMatch(/^https:\/\//);
      }
      expect(provider.website, provider.id).toMatch(/^https:\/\//);
    }
  });

  it('launches stdio providers through a known runner', () => {
    for (const provider of Object.values(loadBundledProviders())) {
      if (provider.stdio) expect(['npx', 'uvx', 'docker'], provider.id).toContain(provider.stdio.command);
    }
  });

  it('ships in the published package (files) and as an export', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(manifest.files).toContain('providers.json');
    expect(manifest.exports['./providers.json']).toBe('./providers.json');
  });
});
