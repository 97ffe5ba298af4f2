import { describe, expect, it } from 'vitest';
import { RegistryError } from '../src/errors.js';
import { parseProvider, parseProviderMap } from '../src/mcp-provider.js';
import { httpProvider, stdioProvider } from './helpers/providers.js';

function message(data: unknown): string {
  const result = parseProvider(data);
  if (result.ok) throw new Error('expected the provider to be rejected');
  return result.message;
}

describe('McpProvider schema (SPEC area E, McpProvider)', () => {
  it('accepts a provider with a stdio transport and a setup step', () => {
    const provider = stdioProvider('memory', {
      stdio: {
        command: 'npx',
        args: ['-y', 'pkg'],
        setup: { description: 'Export a token', command: 'export T=<t>', needsSetup: true },
      },
    });
    expect(parseProvider(provider)).toEqual({ ok: true, provider });
  });

  it('accepts a provider with both transports', () => {
    const provider = httpProvider('both', { stdio: { command: 'npx', args: [] } });
    expect(parseProvider(provider).ok).toBe(true);
  });

  it('requires a lower-case id', () => {
    expect(message(stdioProvider('GitHub'))).toMatch(/^id: /);
    expect(message(stdioProvider(''))).toMatch(/^id: /);
  });

  it('accepts only stdio or http as the recommended transport', () => {
    expect(message({ ...stdioProvider('x'), recommended: 'sse' })).toMatch(/^recommended: /);
  });

  it('requires the configuration of the recommended transport', () => {
    const { http: _http, ...noHttp } = httpProvider('x');
    expect(message(noHttp)).toContain('recommended: the recommended transport has no configuration');
  });

  it('accepts only bearer, oauth or basic as the http auth', () => {
    const provider = httpProvider('x');
    expect(message({ ...provider, http: { ...provider.http, auth: 'apikey' } })).toMatch(/^http\.auth: /);
  });

  it('requires http(s) URLs for website, endpoint and docs', () => {
    const provider = httpProvider('x');
    expect(message({ ...provider, website: 'not a url' })).toMatch(/^website: /);
    expect(message({ ...provider, http: { ...provider.http, url: 'ftp://mcp.example.com' } })).toMatch(
      /^http\.url: /,
    );
    expect(message({ ...provider, http: { ...provider.http, docs: 'javascript:alert(1)' } })).toMatch(
      /^http\.docs: /,
    );
  });

  it('requires every field of a setup step', () => {
    const provider = stdioProvider('x', {
      stdio: { command: 'npx', args: [], setup: { description: 'd', command: 'c' } as never },
    });
    expect(message(provider)).toMatch(/^stdio\.setup\.needsSetup: /);
  });

  it('drops unknown fields so older clients read newer registries (Versioning 4)', () => {
    const result = parseProvider({ ...stdioProvider('x'), icon: 'https://example.com/i.png' });
    expect(result.ok && 'icon' in result.provider).toBe(false);
    expect(result.ok).toBe(true);
  });
});

describe('parseProviderMap: invalid data fails loudly, naming the entry', () => {
  it('returns the validated map', () => {
    const map = { a: stdioProvider('a'), b: httpProvider('b') };
    expect(parseProviderMap(map)).toEqual(map);
  });

  it('throws ERR_INVALID_PROVIDERS naming the bad entry and field', () => {
    const bad = { a: stdioProvider('a'), broken: { ...httpProvider('broken'), website: 'nope' } };
    expect(() => parseProviderMap(bad)).toThrow(RegistryError);
    expect(() => parseProviderMap(bad)).toThrow(/provider "broken" is invalid: website: /);
    try {
      parseProviderMap(bad);
    } catch (error) {
      expect((error as RegistryError).code).toBe('ERR_INVALID_PROVIDERS');
    }
  });

  it('rejects a key that differs from the provider id', () => {
    expect(() => parseProviderMap({ other: stdioProvider('a') })).toThrow(/key and the id must match/);
  });

  it('rejects a list or a scalar instead of a map', () => {
    expect(() => parseProviderMap([stdioProvider('a')])).toThrow(RegistryError);
    expect(() => parseProviderMap('x')).toThrow(RegistryError);
  });
});
