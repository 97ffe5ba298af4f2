import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const srcDir = new URL('../src/', import.meta.url).pathname;
// The CIMD fetcher, metrics and federated login live beside the server and have their own needs (a safe
// fetcher talks to the network); these rules are about the authorization server itself.
const OTHER_PARTS = ['cimd', 'metrics', 'federated'].map((dir) => join(srcDir, dir));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return OTHER_PARTS.includes(path) ? [] : sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('package boundaries (ARCHITECTURE.md)', () => {
  it('no source file imports node:http, an adapter, a store or another area package', () => {
    for (const file of sources(srcDir)) {
      const text = readFileSync(file, 'utf8');
      expect(text, file).not.toMatch(/from 'node:(http|https|net)'/);
      expect(text, file).not.toMatch(
        /from '@keyhold\/(adapter-|store-|token-vault|claim-codes|webhook-kit|registry-client|cli)/,
      );
    }
  });

  it('handlers never read process.env', () => {
    for (const file of sources(srcDir)) expect(readFileSync(file, 'utf8'), file).not.toContain('process.env');
  });

  it('the barrel has no export * and no default export', () => {
    const barrel = readFileSync(join(srcDir, 'index.ts'), 'utf8');
    expect(barrel).not.toMatch(/export \*/);
    expect(barrel).not.toMatch(/export default/);
  });
});

// The names an entry file exports, from its `export { … } from` / `export type { … } from` lines and its own
// `export function|const|class|interface|type` declarations.
function exportedNames(entry: string): string[] {
  const text = readFileSync(join(srcDir, entry), 'utf8');
  const reexported = [...text.matchAll(/export (?:type )?\{([^}]*)\}/g)].flatMap((match) =>
    (match[1] ?? '')
      .split(',')
      .map((name) => name.trim().replace(/^type /, ''))
      .filter((name) => name !== ''),
  );
  const declared = [
    ...text.matchAll(/^export (?:async )?(?:function|const|class|interface|type) (\w+)/gm),
  ].map((match) => match[1] ?? '');
  return [...reexported, ...declared];
}

// The runtime values an entry file exports: its `export { … } from` lines (not `export type`) and its own
// `export function|const|class` declarations.
function runtimeNames(entry: string): string[] {
  const text = readFileSync(join(srcDir, entry), 'utf8');
  const reexported = [...text.matchAll(/export \{([^}]*)\}/g)].flatMap((match) =>
    (match[1] ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '' && !name.startsWith('type ')),
  );
  const declared = [...text.matchAll(/^export (?:async )?(?:function|const|class) (\w+)/gm)].map(
    (match) => match[1] ?? '',
  );
  return [...reexported, ...declared];
}

describe('public surface: every export lives in exactly one entry', () => {
  const entries = ['index.ts', 'storage-entry.ts', 'federated.ts', 'testing.ts', 'opentelemetry.ts'];

  it('no name is exported by two entries (federated names from /federated, store contracts from /storage)', () => {
    const seen = new Map<string, string>();
    const twice: string[] = [];
    for (const entry of entries) {
      for (const name of exportedNames(entry)) {
        const first = seen.get(name);
        if (first !== undefined && first !== entry) twice.push(`${name} (${first}, ${entry})`);
        seen.set(name, entry);
      }
    }
    expect(twice).toEqual([]);
  });

  it('the main entry offers what a host mounts and configures: at most 20 runtime values', () => {
    expect(runtimeNames('index.ts').length).toBeLessThanOrEqual(20);
  });

  it('protocol constants, policy tables and CIMD machinery stay internal', () => {
    const main = exportedNames('index.ts');
    for (const internal of [
      'ACCESS_TOKEN_TYPE',
      'ANONYMOUS_GRANT_TYPES',
      'CLIENT_ASSERTION_ALGORITHMS',
      'CLIENT_ASSERTION_TYPE_JWT_BEARER',
      'CLIENT_GRANT_TYPES',
      'CLIENT_METADATA_LIMITS',
      'DEFAULT_CONSENT_STRINGS',
      'DEFAULT_RATE_LIMITS',
      'DEFAULT_RESOURCE_SCOPES',
      'MACHINE_SUBJECT_PREFIX',
      'TOKEN_EXCHANGE_GRANT',
      'gatedGrantTypes',
      'inferApplicationType',
      'isMetadataDocumentClientId',
      'noopMetrics',
      'renderConsentPage',
      'tenantIssuer',
      'wellKnownUrl',
      'createCimdResolver',
      'createJwksResolver',
      'createSafeFetch',
      'isForbiddenAddress',
      'CimdResolver',
      'JwksResolver',
      'checkClientIdUrl',
      'isHostAllowed',
      'ForbiddenAddressError',
    ]) {
      expect(main).not.toContain(internal);
    }
  });
});
