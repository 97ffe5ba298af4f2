import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostileAnswer, HostilePeer } from '../../../../test-support/hostile-peer.js';
import { startHostilePeer } from '../../../../test-support/hostile-peer.js';
import type { FederatedLogin } from '../../src/federated/login.js';
import { createFederatedLogin } from '../../src/federated/login.js';
import { createMemoryUserStore } from '../../src/federated/memory-store.js';

// A hostile identity provider on a real socket: every call openid-client makes goes through the bounded fetch
// (discovery and token are exercised here; JWKS and userinfo take the same path, though openid-client does
// not fetch the key set for an id_token received directly from the token endpoint), so an endless, huge or
// trickling answer fails that login within the time limit and the byte cap, and the next login works.

const TIMEOUT_MS = 600;
const REDIRECT_URI = 'http://127.0.0.1:1/federated/callback';
const CLIENT_ID = 'keyhold-host';

let peer: HostilePeer;
let privateKey: CryptoKey;
let publicJwk: Record<string, unknown>;

beforeAll(async () => {
  peer = await startHostilePeer();
  const pair = await generateKeyPair('RS256', { extractable: true });
  privateKey = pair.privateKey;
  publicJwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
});
afterAll(() => peer.close());

const HOSTILE: readonly [string, HostileAnswer][] = [
  ['endless', { kind: 'endless', prefix: '{"access_token":"' }],
  ['huge', { kind: 'huge', body: JSON.stringify({ padding: 'A'.repeat(2_000_000) }) }],
  ['trickling', { kind: 'trickle', body: '{"access_token":"slow"}', intervalMs: 100 }],
];

/** An identity provider under `/<name>` whose discovery document points at its own token and JWKS paths. */
function identityProvider(name: string) {
  const issuer = `${peer.origin}/${name}`;
  const discoveryPath = `/${name}/.well-known/openid-configuration`;
  const discovery: HostileAnswer = {
    kind: 'plain',
    body: JSON.stringify({
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      jwks_uri: `${issuer}/jwks`,
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
    }),
  };
  peer.route(discoveryPath, discovery);
  peer.route(`/${name}/jwks`, { kind: 'plain', body: JSON.stringify({ keys: [publicJwk] }) });
  const login = createFederatedLogin({
    providers: [
      {
        id: 'idp',
        issuer,
        clientId: CLIENT_ID,
        clientSecret: 'a-client-secret',
        redirectUri: REDIRECT_URI,
        allowInsecureRequests: true,
      },
    ],
    userStore: createMemoryUserStore(),
    requestTimeoutMs: TIMEOUT_MS,
  });
  return { issuer, login, discoveryPath, discovery };
}

async function honestTokenAnswer(issuer: string, nonce: string): Promise<HostileAnswer> {
  const idToken = await new SignJWT({ nonce })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer(issuer)
    .setAudience(CLIENT_ID)
    .setSubject('upstream-user')
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(privateKey);
  return {
    kind: 'plain',
    body: JSON.stringify({ access_token: 'at', token_type: 'Bearer', id_token: idToken }),
  };
}

async function loginThrough(login: FederatedLogin) {
  const { url, state } = await login.start('idp');
  const nonce = new URL(url).searchParams.get('nonce')!;
  return { state, nonce, callback: `${REDIRECT_URI}?code=the-code&state=${encodeURIComponent(state)}` };
}

async function expectReadStopped(): Promise<void> {
  expect((await peer.lastAnswerClosed(TIMEOUT_MS * 3)).isClosed).toBe(true);
}

async function timed<T>(work: Promise<T>): Promise<{ outcome: T | unknown; ms: number }> {
  const started = Date.now();
  const outcome = await work.catch((error: unknown) => error);
  return { outcome, ms: Date.now() - started };
}

describe('federated login: every identity provider read is bounded in bytes and time', () => {
  it.each(HOSTILE)(
    'a %s token endpoint answer fails the login within the time limit; the next login works',
    async (kind, answer) => {
      const { issuer, login } = identityProvider(`token-${kind}`);
      const first = await loginThrough(login);
      peer.route(`/token-${kind}/token`, answer);
      const { outcome, ms } = await timed(login.complete(first.callback, { state: first.state }));
      // openid-client reports the failed read as a response it could not use: a result, not a crash.
      expect(outcome).toMatchObject({ ok: false, error: 'invalid_response' });
      expect(ms).toBeLessThan(TIMEOUT_MS + 1000);
      await expectReadStopped();

      const second = await loginThrough(login);
      peer.route(`/token-${kind}/token`, await honestTokenAnswer(issuer, second.nonce));
      const result = await login.complete(second.callback, { state: second.state });
      expect(result).toMatchObject({ ok: true, identity: { issuer, subject: 'upstream-user' } });
    },
  );

  it.each(HOSTILE)(
    'a %s discovery document fails start() within the time limit; a later start retries',
    async (kind, answer) => {
      const { login, discoveryPath, discovery } = identityProvider(`discovery-${kind}`);
      peer.route(discoveryPath, answer);
      const { outcome, ms } = await timed(login.start('idp'));
      expect(outcome).toBeInstanceOf(Error);
      expect(ms).toBeLessThan(TIMEOUT_MS + 1000);
      await expectReadStopped();

      peer.route(discoveryPath, discovery);
      expect((await login.start('idp')).url).toContain(`/discovery-${kind}/authorize`);
    },
  );

  it('the limits are validated options', () => {
    expect(() =>
      createFederatedLogin({
        providers: [{ id: 'x', issuer: 'https://idp.example', clientId: 'c', redirectUri: REDIRECT_URI }],
        userStore: createMemoryUserStore(),
        maxResponseBytes: 0,
      }),
    ).toThrow(/maxResponseBytes/);
  });
});
