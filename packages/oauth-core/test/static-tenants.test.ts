import { createPrivateKey } from 'node:crypto';
import { exportJWK, exportPKCS8, generateKeyPair, type JWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAuthorizationServerWithEndpoints } from '../src/authorization-server.js';
import {
  createMemoryStorage,
  createStaticTenants,
  generateSigningKey,
  OAuthCoreError,
  type SigningKeyConfig,
  type TenantConfig,
} from '../src/index.js';
import { BASE_URL, postForm } from './helpers.js';

interface Fixtures {
  rsaJwk: JWK;
  ecJwk: JWK;
  p384Jwk: JWK;
  rsaPem: string;
  ecPem: string;
  ed25519Pem: string;
  pkcs1Pem: string;
}

let keys: Fixtures;

beforeAll(async () => {
  const rsa = (await generateKeyPair('RS256', { extractable: true })).privateKey;
  const ec = (await generateKeyPair('ES256', { extractable: true })).privateKey;
  const rsaPem = await exportPKCS8(rsa);
  keys = {
    rsaJwk: await exportJWK(rsa),
    ecJwk: await exportJWK(ec),
    p384Jwk: await exportJWK((await generateKeyPair('ES384', { extractable: true })).privateKey),
    rsaPem,
    ecPem: await exportPKCS8(ec),
    ed25519Pem: await exportPKCS8((await generateKeyPair('EdDSA', { extractable: true })).privateKey),
    pkcs1Pem: String(createPrivateKey(rsaPem).export({ type: 'pkcs1', format: 'pem' })),
  };
});

const HS256_SECRET = 'x'.repeat(32);

/** The message `createStaticTenants` throws for a one-tenant record, or undefined when it accepts it. */
function creationError(config: TenantConfig, slug = 'demo'): OAuthCoreError | undefined {
  try {
    createStaticTenants({ [slug]: config });
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(OAuthCoreError);
    return error as OAuthCoreError;
  }
}

/** What the tenant's first request throws when the same config comes from a lookup of the host's own. */
async function firstRequestError(config: TenantConfig): Promise<unknown> {
  const server = createAuthorizationServerWithEndpoints({
    baseUrl: BASE_URL,
    tenants: { get: (slug) => (slug === 'demo' ? config : undefined) },
    storage: createMemoryStorage(),
  });
  return server.jwks(postForm('/', ''), 'demo').then(
    () => undefined,
    (error: unknown) => error,
  );
}

const key = (config: Record<string, unknown>) => ({ signingKeys: [config as unknown as SigningKeyConfig] });

/** Every broken signing key the creation-time check refuses, with what its message says. */
const BAD_KEYS: ReadonlyArray<readonly [string, () => TenantConfig, RegExp]> = [
  ['an empty kid', () => key({ kid: '', alg: 'HS256', secret: HS256_SECRET }), /needs a non-empty kid/],
  [
    'an algorithm tenants cannot sign with (PS256)',
    () => key({ kid: 'k1', alg: 'PS256', privateKey: keys.rsaJwk }),
    /signing key k1: unsupported alg "PS256" \(one of HS256, HS384, HS512, RS256, ES256\)/,
  ],
  [
    'an algorithm tenants cannot sign with (EdDSA)',
    () => key({ kid: 'k1', alg: 'EdDSA', privateKey: keys.ecJwk }),
    /unsupported alg "EdDSA"/,
  ],
  [
    'an HS256 secret shorter than 32 bytes',
    () => key({ kid: 'k1', alg: 'HS256', secret: 'short' }),
    /signing key k1: HS256 needs a secret of at least 32 bytes/,
  ],
  [
    'an HS512 secret shorter than 64 bytes',
    () => key({ kid: 'k1', alg: 'HS512', secret: new Uint8Array(32) }),
    /HS512 needs a secret of at least 64 bytes/,
  ],
  [
    'an HS256 key given a privateKey instead of a secret',
    () => key({ kid: 'k1', alg: 'HS256', privateKey: keys.ecJwk }),
    /HS256 needs a secret/,
  ],
  [
    'an asymmetric key without privateKey',
    () => key({ kid: 'k1', alg: 'ES256', secret: HS256_SECRET }),
    /ES256 needs privateKey, a private JWK or a PKCS#8 PEM string/,
  ],
  [
    'an EC JWK configured as RS256',
    () => key({ kid: 'k1', alg: 'RS256', privateKey: keys.ecJwk }),
    /RS256 needs a JWK with kty "RSA" \(got kty "EC", crv "P-256"\)/,
  ],
  [
    'an RSA JWK configured as ES256',
    () => key({ kid: 'k1', alg: 'ES256', privateKey: keys.rsaJwk }),
    /ES256 needs a JWK with kty "EC" and crv "P-256" \(got kty "RSA"\)/,
  ],
  [
    'a P-384 JWK configured as ES256',
    () => key({ kid: 'k1', alg: 'ES256', privateKey: keys.p384Jwk }),
    /crv "P-384"/,
  ],
  [
    'a public JWK where a private one is needed',
    () => {
      const { d: _, ...publicJwk } = keys.ecJwk;
      return key({ kid: 'k1', alg: 'ES256', privateKey: publicJwk });
    },
    /the JWK is a public key: a private key needs its "d" member/,
  ],
  [
    'an RSA JWK without its CRT members',
    () => {
      const { p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...partial } = keys.rsaJwk;
      return key({ kid: 'k1', alg: 'RS256', privateKey: partial });
    },
    /the RSA JWK needs "p", "q", "dp", "dq", "qi" as base64url strings/,
  ],
  [
    'a JWK member that is not base64url',
    () => key({ kid: 'k1', alg: 'ES256', privateKey: { ...keys.ecJwk, d: `${keys.ecJwk.d?.slice(1)}=` } }),
    /the EC JWK needs "d" as base64url strings/,
  ],
  [
    'a truncated P-256 private scalar',
    () => key({ kid: 'k1', alg: 'ES256', privateKey: { ...keys.ecJwk, d: keys.ecJwk.d?.slice(2) } }),
    /the P-256 JWK members "d" must be 32 bytes/,
  ],
  [
    'a JWK whose own alg differs',
    () => key({ kid: 'k1', alg: 'ES256', privateKey: { ...keys.ecJwk, alg: 'ES384' } }),
    /the JWK says alg "ES384", the key is configured as ES256/,
  ],
  [
    'a PEM without its armour',
    () => key({ kid: 'k1', alg: 'RS256', privateKey: keys.rsaPem.split('\n').slice(1, -2).join('') }),
    /the PEM needs "-----BEGIN PRIVATE KEY-----" and "-----END PRIVATE KEY-----" lines/,
  ],
  [
    'a PKCS#1 PEM',
    () => key({ kid: 'k1', alg: 'RS256', privateKey: keys.pkcs1Pem }),
    /the PEM is a RSA PRIVATE KEY, not a PKCS#8 PRIVATE KEY \(convert it with `openssl pkcs8 -topk8 -nocrypt`\)/,
  ],
  [
    'a PEM whose armour lines differ',
    () => key({ kid: 'k1', alg: 'RS256', privateKey: keys.rsaPem.replace('END PRIVATE', 'END PUBLIC') }),
    /the PEM begins with PRIVATE KEY but ends with PUBLIC KEY/,
  ],
  [
    'a PEM body that is not base64',
    () => key({ kid: 'k1', alg: 'RS256', privateKey: keys.rsaPem.replace(/\nM/, '\n*') }),
    /the PEM body is not well-formed base64/,
  ],
  [
    'a PEM body that is not PKCS#8',
    () =>
      key({
        kid: 'k1',
        alg: 'ES256',
        privateKey: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----',
      }),
    /the PEM body is not a PKCS#8 private key/,
  ],
  [
    'an RSA PEM configured as ES256',
    () => key({ kid: 'k1', alg: 'ES256', privateKey: keys.rsaPem }),
    /the PEM holds an RSA key, but ES256 needs an EC key on P-256/,
  ],
  [
    'an EC PEM configured as RS256',
    () => key({ kid: 'k1', alg: 'RS256', privateKey: keys.ecPem }),
    /the PEM holds an EC key, but RS256 needs an RSA key/,
  ],
  [
    'an Ed25519 PEM configured as ES256',
    () => key({ kid: 'k1', alg: 'ES256', privateKey: keys.ed25519Pem }),
    /the PEM holds an Ed25519 key, but ES256 needs an EC key on P-256/,
  ],
  ['no signing keys', () => ({ signingKeys: [] }), /a tenant needs at least one signing key/],
  [
    'two keys with one kid',
    () => ({
      signingKeys: [
        { kid: 'a', alg: 'HS256', secret: HS256_SECRET },
        { kid: 'a', alg: 'HS256', secret: HS256_SECRET },
      ],
    }),
    /duplicate signing key kid a/,
  ],
  [
    'two active keys',
    () => ({
      signingKeys: [
        { kid: 'a', alg: 'HS256', secret: HS256_SECRET, active: true },
        { kid: 'b', alg: 'HS256', secret: HS256_SECRET, active: true },
      ],
    }),
    /only one signing key may be active/,
  ],
];

describe('createStaticTenants refuses a signing key that cannot be imported, at creation', () => {
  it.each(BAD_KEYS)('refuses %s with ERR_INVALID_OPTIONS naming the tenant', (_, config, message) => {
    const error = creationError(config());
    expect(error?.code).toBe('ERR_INVALID_OPTIONS');
    expect(error?.message).toMatch(/^tenant demo: /);
    expect(error?.message).toMatch(message);
  });

  it('so createAuthorizationServer with such tenants never starts', () => {
    expect(() =>
      createAuthorizationServerWithEndpoints({
        baseUrl: BASE_URL,
        tenants: createStaticTenants({ demo: key({ kid: 'k1', alg: 'HS256', secret: 'short' }) }),
        storage: createMemoryStorage(),
      }),
    ).toThrow(expect.objectContaining({ name: 'OAuthCoreError', code: 'ERR_INVALID_OPTIONS' }));
  });
});

describe('createStaticTenants accepts a good key of every tenant signing algorithm', () => {
  const GOOD: ReadonlyArray<readonly [string, () => Promise<SigningKeyConfig>]> = [
    ['HS256', () => generateSigningKey('HS256', 'k1')],
    ['HS384', () => generateSigningKey('HS384', 'k1')],
    ['HS512', () => generateSigningKey('HS512', 'k1')],
    ['HS256 with a string secret', async () => ({ kid: 'k1', alg: 'HS256', secret: HS256_SECRET })],
    ['RS256 as a JWK', () => generateSigningKey('RS256', 'k1')],
    ['ES256 as a JWK', () => generateSigningKey('ES256', 'k1')],
    ['RS256 as a PKCS#8 PEM', async () => ({ kid: 'k1', alg: 'RS256', privateKey: keys.rsaPem })],
    ['ES256 as a PKCS#8 PEM', async () => ({ kid: 'k1', alg: 'ES256', privateKey: keys.ecPem })],
    [
      'ES256 as a PEM with CRLF lines and surrounding whitespace',
      async () => ({ kid: 'k1', alg: 'ES256', privateKey: `\n${keys.ecPem.replace(/\n/g, '\r\n')}\n` }),
    ],
    [
      'a JWK naming its own (matching) alg',
      async () => ({ kid: 'k1', alg: 'ES256', privateKey: { ...keys.ecJwk, alg: 'ES256' } }),
    ],
  ];

  it.each(GOOD)('accepts %s, and the tenant serves its JWKS', async (_, make) => {
    const config: TenantConfig = { signingKeys: [await make()] };
    const tenants = createStaticTenants({ demo: config });
    expect(await tenants.get('demo')).toBe(config);
    const server = createAuthorizationServerWithEndpoints({
      baseUrl: BASE_URL,
      tenants,
      storage: createMemoryStorage(),
    });
    const result = await server.jwks(postForm('/', ''), 'demo');
    expect(result.status).toBe(200);
  });

  it('accepts rotation: several keys, one marked active', async () => {
    const config: TenantConfig = {
      signingKeys: [
        { ...(await generateSigningKey('ES256', 'new')), active: true },
        await generateSigningKey('RS256', 'old'),
      ],
    };
    expect(creationError(config)).toBeUndefined();
  });
});

describe('createStaticTenants checks the rest of each tenant config the first request would', () => {
  const good = (): TenantConfig => key({ kid: 'k1', alg: 'HS256', secret: HS256_SECRET });

  it.each([
    ['an empty slug', ''],
    ['a slug with a slash', 'a/b'],
    ['a slug starting with "-"', '-demo'],
    ['a slug of 65 characters', 'a'.repeat(65)],
  ])('refuses %s', (_, slug) => {
    expect(creationError(good(), slug)?.message).toMatch(/is not a tenant slug/);
  });

  it('refuses unknown tokenEndpointAuthMethods', () => {
    const config = { ...good(), tokenEndpointAuthMethods: ['client_secret_jwt'] } as never;
    expect(creationError(config)?.message).toMatch(/^tenant demo: tokenEndpointAuthMethods must list/);
  });

  it('refuses a loginUrl that is no URL', () => {
    expect(creationError({ ...good(), loginUrl: 'http://[::1' })?.message).toBe(
      'tenant demo: loginUrl is not a URL',
    );
  });

  it('refuses a config that is not an object', () => {
    expect(creationError(null as never)?.message).toBe('tenant demo: the config must be an object');
  });

  it('refuses anything but a record of configs', () => {
    expect(() => createStaticTenants(undefined as never)).toThrow(/record of tenant configs by slug/);
  });

  it('knows only the record’s own entries, read once', async () => {
    const record: Record<string, TenantConfig> = { demo: good() };
    const tenants = createStaticTenants(record);
    record.later = good();
    expect(await tenants.get('later')).toBeUndefined();
    expect(await tenants.get('constructor')).toBeUndefined();
    expect(await tenants.get('toString')).toBeUndefined();
  });
});

describe('a lookup you implement is checked on first use, with the same message', () => {
  it.each(BAD_KEYS)('the first request refuses %s as createStaticTenants does', async (_, config) => {
    const made = config();
    const atCreation = creationError(made);
    const onFirstUse = await firstRequestError(made);
    expect(onFirstUse).toBeInstanceOf(OAuthCoreError);
    expect((onFirstUse as OAuthCoreError).code).toBe('ERR_INVALID_OPTIONS');
    expect((onFirstUse as OAuthCoreError).message).toBe(atCreation?.message);
  });

  it('the first request refuses a bad loginUrl as createStaticTenants does', async () => {
    const config: TenantConfig = {
      ...key({ kid: 'k1', alg: 'HS256', secret: HS256_SECRET }),
      loginUrl: 'http://[::1',
    };
    expect(((await firstRequestError(config)) as Error).message).toBe(creationError(config)?.message);
  });
});
