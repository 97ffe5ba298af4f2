import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTrustPolicies } from '../src/trust-policies.js';

function fileWith(content: string): { dir: string; name: string } {
  const dir = mkdtempSync(join(tmpdir(), 'keyhold-trust-'));
  writeFileSync(join(dir, 'trust.json'), content);
  return { dir, name: 'trust.json' };
}

const ENTRY = {
  issuer: 'https://idp.example',
  jwks_uri: 'https://idp.example/jwks',
  clients: ['c1'],
  scopes: ['mcp:tools'],
};

const WORKLOAD = {
  issuer: 'https://ci.example',
  jwks_uri: 'https://ci.example/jwks',
  subject: 'repo:acme/*',
  scopes: ['mcp:tools'],
};

describe('KEYHOLD_TRUST_POLICIES names a JSON file of trusted enterprise IdPs and workloads keyed by tenant slug', () => {
  it('absent: no tenant trusts any IdP', () => {
    expect(readTrustPolicies({}, '/', ['demo'])).toEqual({});
  });

  it('reads workloads, snake_case fields becoming the library’s camelCase', () => {
    const { dir, name } = fileWith(
      JSON.stringify({
        demo: {
          workloads: [{ ...WORKLOAD, require_jti: false, max_lifetime_seconds: 600, client_id: 'ci' }],
        },
      }),
    );
    expect(readTrustPolicies({ KEYHOLD_TRUST_POLICIES: name }, dir, ['demo'])).toEqual({
      demo: {
        enterpriseIssuers: [],
        workloads: [
          {
            issuer: 'https://ci.example',
            jwksUri: 'https://ci.example/jwks',
            subject: 'repo:acme/*',
            scopes: ['mcp:tools'],
            requireJti: false,
            maxLifetimeSeconds: 600,
            clientId: 'ci',
          },
        ],
      },
    });
  });

  it('reads enterpriseIssuers, jwks_uri becoming jwksUri, relative to the working directory', () => {
    const { dir, name } = fileWith(JSON.stringify({ demo: { enterpriseIssuers: [ENTRY] } }));
    expect(readTrustPolicies({ KEYHOLD_TRUST_POLICIES: name }, dir, ['demo'])).toEqual({
      demo: {
        enterpriseIssuers: [
          {
            issuer: 'https://idp.example',
            jwksUri: 'https://idp.example/jwks',
            clients: ['c1'],
            scopes: ['mcp:tools'],
          },
        ],
        workloads: [],
      },
    });
  });

  const refusals: [string, string, RegExp][] = [
    [
      'a tenant the host does not serve',
      JSON.stringify({ other: { enterpriseIssuers: [] } }),
      /"other" is not a tenant/,
    ],
    [
      'an unknown workload field',
      JSON.stringify({ demo: { workloads: [{ ...WORKLOAD, audience: 'x' }] } }),
      /demo\.workloads\[0\] has unknown fields: audience/,
    ],
    [
      'a workload field spelled both ways',
      JSON.stringify({ demo: { workloads: [{ ...WORKLOAD, jwksUri: 'https://ci.example/jwks' }] } }),
      /spells jwksUri twice/,
    ],
    [
      'workloads that are no array',
      JSON.stringify({ demo: { workloads: {} } }),
      /workloads must be an array/,
    ],
    [
      'an unknown tenant field',
      JSON.stringify({ demo: { workload: [] } }),
      /demo has unknown fields: workload/,
    ],
    [
      'an unknown field',
      JSON.stringify({ demo: { enterpriseIssuers: [{ ...ENTRY, audience: 'x' }] } }),
      /unknown fields: audience/,
    ],
    ['a file that is not JSON', '{', /is not JSON/],
    ['an array', '[]', /keyed by tenant slug/],
  ];
  for (const [name, content, message] of refusals) {
    it(`${name} stops the start with a message naming the file`, () => {
      const file = fileWith(content);
      expect(() => readTrustPolicies({ KEYHOLD_TRUST_POLICIES: file.name }, file.dir, ['demo'])).toThrow(
        message,
      );
    });
  }

  it('a missing file stops the start', () => {
    expect(() => readTrustPolicies({ KEYHOLD_TRUST_POLICIES: 'nope.json' }, tmpdir(), ['demo'])).toThrow(
      /cannot be read/,
    );
  });
});
