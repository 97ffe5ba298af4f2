import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createAuthorizationServer, generateSigningKey } from '@keyhold/oauth-core';
import { createSqliteStores } from '@keyhold/store-sqlite';
import { beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, freshDataDir, keyhold, openHostDatabase, requireBuiltCli } from './support/cli-host.js';

// The CLI runs as a real child process from its build output: build before testing
// (`pnpm --filter "@keyhold/cli..." run build`).
const ISSUER = `${BASE_URL}/tenant/demo`;

/** A data directory holding a migrated `keyhold.db`, as the example host leaves it. */
function hostDataDir(): string {
  const cwd = freshDataDir('clients');
  const db = openHostDatabase(cwd);
  createSqliteStores(db);
  db.close();
  return cwd;
}

function base64url(value: string | Buffer): string {
  return Buffer.from(value).toString('base64url');
}

/** An ES256 key pair: the public JWK for the client's key set and a signer of client assertions. */
function clientKey(kid: string) {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    publicJwk: { ...publicKey.export({ format: 'jwk' }), kid, use: 'sig' },
    assertion(clientId: string): string {
      const now = Math.floor(Date.now() / 1000);
      const header = base64url(JSON.stringify({ alg: 'ES256', typ: 'JWT', kid }));
      const payload = base64url(
        JSON.stringify({
          iss: clientId,
          sub: clientId,
          aud: ISSUER,
          jti: randomUUID(),
          iat: now,
          exp: now + 60,
        }),
      );
      const signature = sign('sha256', Buffer.from(`${header}.${payload}`), {
        key: privateKey,
        dsaEncoding: 'ieee-p1363',
      });
      return `${header}.${payload}.${base64url(signature)}`;
    },
  };
}

beforeAll(requireBuiltCli);

describe('keyhold clients add --auth-method private_key_jwt: a client that signs instead of holding a secret', () => {
  it('with --jwks, the client gets no secret and authenticates a client_credentials grant with a signed assertion', async () => {
    const cwd = hostDataDir();
    const key = clientKey('agent-1');
    writeFileSync(join(cwd, 'keys.json'), JSON.stringify({ keys: [key.publicJwk] }));
    const added = await keyhold(
      [
        'clients',
        'add',
        '--grant',
        'client_credentials',
        '--auth-method',
        'private_key_jwt',
        '--jwks',
        'keys.json',
        '--scope',
        'profile',
        '--json',
      ],
      cwd,
    );
    expect(added.code, added.stderr).toBe(0);
    const client = JSON.parse(added.stdout) as Record<string, unknown> & { clientId: string };
    expect(client).not.toHaveProperty('clientSecret');
    expect(client).toMatchObject({
      tokenEndpointAuthMethod: 'private_key_jwt',
      jwks: { keys: [expect.objectContaining({ kid: 'agent-1', kty: 'EC', crv: 'P-256' })] },
    });

    const db = openHostDatabase(cwd);
    try {
      const storage = createSqliteStores(db).oauth;
      const tenant = {
        signingKeys: [await generateSigningKey('ES256', 'as-1')],
        scopesSupported: ['profile'],
      };
      const server = createAuthorizationServer({
        baseUrl: BASE_URL,
        tenants: { get: (slug) => (slug === 'demo' ? tenant : undefined) },
        storage,
      });
      const stored = await server.clients.get('demo', client.clientId);
      expect(stored).toMatchObject({
        tokenEndpointAuthMethod: 'private_key_jwt',
        registration: 'provisioned',
      });
      expect(stored).not.toHaveProperty('clientSecretHash');

      const token = async (assertion: string) => {
        const response = await server.fetch(
          new Request(`${BASE_URL}/tenant/demo/token`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({
              grant_type: 'client_credentials',
              scope: 'profile',
              client_id: client.clientId,
              client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
              client_assertion: assertion,
            }),
          }),
        );
        return { status: response.status, body: await response.text() };
      };
      const granted = await token(key.assertion(client.clientId));
      expect(granted.status, JSON.stringify(granted.body)).toBe(200);
      expect(JSON.parse(String(granted.body))).toMatchObject({ token_type: 'Bearer', scope: 'profile' });
      // A key not in the stored set does not authenticate the client.
      const stranger = await token(clientKey('agent-1').assertion(client.clientId));
      expect(stranger.status).toBe(401);
    } finally {
      db.close();
    }
  });

  it('with --jwks-uri, the stored client points at the https key set and no secret is printed', async () => {
    const cwd = hostDataDir();
    const added = await keyhold(
      [
        'clients',
        'add',
        '--grant',
        'client_credentials',
        '--auth-method',
        'private_key_jwt',
        '--jwks-uri',
        'https://agent.example/jwks.json',
      ],
      cwd,
    );
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).not.toContain('Client secret');
    expect(added.stdout).toContain('private_key_jwt');
    expect(added.stdout).toContain('https://agent.example/jwks.json');
    const listed = await keyhold(['clients', 'list', '--json'], cwd);
    const { clients } = JSON.parse(listed.stdout) as { clients: Record<string, unknown>[] };
    expect(clients).toEqual([
      expect.objectContaining({
        tokenEndpointAuthMethod: 'private_key_jwt',
        jwksUri: 'https://agent.example/jwks.json',
      }),
    ]);
  });
});

describe('keyhold clients add: a key set goes with private_key_jwt, exactly one of --jwks-uri and --jwks', () => {
  const grant = ['clients', 'add', '--grant', 'client_credentials'];
  it.each([
    ['private_key_jwt without a key set', ['--auth-method', 'private_key_jwt'], 'exactly one'],
    [
      'private_key_jwt with both',
      ['--auth-method', 'private_key_jwt', '--jwks-uri', 'https://a.example/jwks', '--jwks', 'keys.json'],
      'exactly one',
    ],
    ['--jwks-uri with a secret method', ['--jwks-uri', 'https://a.example/jwks'], 'private_key_jwt only'],
    ['--jwks with none', ['--auth-method', 'none', '--jwks', 'keys.json'], 'private_key_jwt only'],
    [
      'an unreadable --jwks file',
      ['--auth-method', 'private_key_jwt', '--jwks', 'missing.json'],
      'could not read',
    ],
    [
      'a --jwks file that is not JSON',
      ['--auth-method', 'private_key_jwt', '--jwks', 'garbage.json'],
      'not JSON',
    ],
  ])('refuses %s with a usage error (exit 2)', async (_, flags, message) => {
    const cwd = hostDataDir();
    writeFileSync(join(cwd, 'keys.json'), JSON.stringify({ keys: [clientKey('k').publicJwk] }));
    writeFileSync(join(cwd, 'garbage.json'), '{keys');
    const run = await keyhold([...grant, ...flags], cwd);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stderr).toContain('Usage: keyhold clients add');
  });

  it.each([
    ['an http --jwks-uri', ['--jwks-uri', 'http://agent.example/jwks.json'], 'jwks_uri'],
    ['a key set holding a private key', ['--jwks', 'private.json'], 'private key material'],
  ])('refuses %s as registration does, with invalid_client_metadata (exit 2)', async (_, flags, message) => {
    const cwd = hostDataDir();
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    writeFileSync(
      join(cwd, 'private.json'),
      JSON.stringify({ keys: [privateKey.export({ format: 'jwk' })] }),
    );
    const run = await keyhold([...grant, '--auth-method', 'private_key_jwt', ...flags, '--json'], cwd);
    expect(run.code).toBe(2);
    const { error } = JSON.parse(run.stdout) as { error: { code: string; message: string } };
    expect(error.code).toBe('invalid_client_metadata');
    expect(error.message).toContain(message);
  });
});

describe('keyhold clients add --grant jwt-bearer: a confidential client that redeems ID-JAGs', () => {
  it('provisions the client with the jwt-bearer grant and a secret', async () => {
    const cwd = hostDataDir();
    const grant = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
    const added = await keyhold(['clients', 'add', '--grant', grant], cwd);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('Client secret');
    const listed = await keyhold(['clients', 'list', '--json'], cwd);
    const { clients } = JSON.parse(listed.stdout) as { clients: Record<string, unknown>[] };
    expect(clients).toEqual([expect.objectContaining({ grantTypes: [grant] })]);
  });

  it('refuses it for a public client', async () => {
    const cwd = hostDataDir();
    const added = await keyhold(
      ['clients', 'add', '--grant', 'urn:ietf:params:oauth:grant-type:jwt-bearer', '--auth-method', 'none'],
      cwd,
    );
    expect(added.code).not.toBe(0);
    expect(added.stderr).toContain('jwt-bearer');
  });
});
