import { describeOnceStoreConformance } from '@keyhold/core/testing';
import { describe, expect, it } from 'vitest';
import { describeEventStoreConformance } from './events/store-testing.js';
import { describeGrantStoreConformance, type StoragePair } from './grant-store-testing.js';
import type {
  AuthorizationCodeRecord,
  ClientRecord,
  OAuthStorage,
  PendingAuthorizationRecord,
  RefreshTokenRecord,
  RefreshTokenRotation,
} from './storage.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
let counter = 0;
function unique(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}-${Math.random().toString(36).slice(2, 10)}`;
}

function client(overrides: Partial<ClientRecord> = {}): ClientRecord {
  return {
    clientId: unique('client'),
    clientName: 'Example',
    redirectUris: ['https://app.example/cb', 'http://127.0.0.1/cb'],
    grantTypes: ['authorization_code', 'refresh_token'],
    responseTypes: ['code'],
    tokenEndpointAuthMethod: 'client_secret_basic',
    clientSecretHash: 'hash',
    scope: 'openid mcp',
    createdAt: NOW,
    ...overrides,
  };
}

function code(overrides: Partial<AuthorizationCodeRecord> = {}): AuthorizationCodeRecord {
  return {
    codeHash: unique('code'),
    clientId: 'client-1',
    clientType: 'registered',
    userId: 'user-1',
    redirectUri: 'https://app.example/cb',
    codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    scope: 'openid',
    resources: ['https://api.example/mcp'],
    nonce: 'n-1',
    authTime: NOW,
    expiresAt: NOW + 60_000,
    ...overrides,
  };
}

function pending(overrides: Partial<PendingAuthorizationRecord> = {}): PendingAuthorizationRecord {
  return {
    id: unique('req'),
    userId: 'user-1',
    clientId: 'https://app.example/client.json',
    clientType: 'metadata_document',
    clientName: 'Example',
    clientHost: 'app.example',
    redirectUri: 'https://app.example/cb',
    codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    scope: 'openid mcp',
    resources: [],
    state: 'xyz',
    expiresAt: NOW + 600_000,
    ...overrides,
  };
}

function refresh(overrides: Partial<RefreshTokenRecord> = {}): RefreshTokenRecord {
  return {
    tokenHash: unique('rt'),
    familyId: unique('family'),
    clientId: 'client-1',
    clientType: 'registered',
    userId: 'user-1',
    scope: 'openid mcp',
    resources: ['https://api.example/mcp'],
    createdAt: NOW,
    expiresAt: NOW + 30 * 86_400_000,
    ...overrides,
  };
}

/**
 * The conformance suite every {@link OAuthStorage} implementation must pass. Call it from a test file;
 * `makeStorage` is called once per test and must return an empty store (or one whose tenants the suite
 * cannot collide with: every id it writes is random). `options.twoInstances` adds the cross-instance checks.
 *
 * @example
 * ```ts
 * import { describeOAuthStorageConformance } from '@keyhold/oauth-core/testing';
 * describeOAuthStorageConformance('sqlite', async () => createSqliteOAuthStorage(':memory:'));
 * ```
 */
export function describeOAuthStorageConformance(
  name: string,
  makeStorage: () => OAuthStorage | Promise<OAuthStorage>,
  options: {
    /**
     * Two storages on one fresh database, as two server instances have them: the suite checks that a grant
     * revoked through one is revoked for the other. Omit it for a storage that lives in one process.
     */
    readonly twoInstances?: StoragePair;
  } = {},
): void {
  describe(`OAuthStorage conformance: ${name}`, () => {
    describe('clients', () => {
      it('returns undefined for an unknown client', async () => {
        const store = await makeStorage();
        expect(await store.clients.get('t1', 'nope')).toBeUndefined();
      });

      it('returns a created client with every field intact', async () => {
        const store = await makeStorage();
        const record = client({ clientUri: 'https://app.example', logoUri: 'https://app.example/logo.png' });
        await store.clients.create('t1', record);
        expect(await store.clients.get('t1', record.clientId)).toEqual(record);
      });

      it('keeps optional fields absent rather than null', async () => {
        const store = await makeStorage();
        const {
          clientSecretHash: _,
          scope: __,
          clientName: ___,
          ...rest
        } = client({ tokenEndpointAuthMethod: 'none' });
        await store.clients.create('t1', rest);
        const found = await store.clients.get('t1', rest.clientId);
        expect(found).toEqual(rest);
        expect(found && 'clientSecretHash' in found).toBe(false);
      });

      it('scopes clients by tenant', async () => {
        const store = await makeStorage();
        const record = client();
        await store.clients.create('t1', record);
        expect(await store.clients.get('t2', record.clientId)).toBeUndefined();
      });

      it('keeps registration, expiry and token exchange audiences', async () => {
        const store = await makeStorage();
        const dynamic = client({ registration: 'dynamic', expiresAt: NOW + 90 * 86_400_000 });
        const provisioned = client({
          registration: 'provisioned',
          grantTypes: ['urn:ietf:params:oauth:grant-type:token-exchange'],
          responseTypes: [],
          redirectUris: [],
          tokenExchangeAudiences: ['https://a.example/api', 'svc-b'],
        });
        await store.clients.create('t1', dynamic);
        await store.clients.create('t1', provisioned);
        expect(await store.clients.get('t1', dynamic.clientId)).toEqual(dynamic);
        expect(await store.clients.get('t1', provisioned.clientId)).toEqual(provisioned);
        const found = await store.clients.get('t1', provisioned.clientId);
        expect(found && 'expiresAt' in found).toBe(false);
      });

      it('keeps private_key_jwt keys (jwks_uri or jwks) and application_type', async () => {
        const store = await makeStorage();
        const byUri = client({
          tokenEndpointAuthMethod: 'private_key_jwt',
          jwksUri: 'https://app.example/jwks.json',
          tokenEndpointAuthSigningAlg: 'RS256',
          applicationType: 'web',
        });
        const { clientSecretHash: _, ...withoutSecret } = client({
          tokenEndpointAuthMethod: 'private_key_jwt',
          applicationType: 'native',
          jwks: {
            keys: [
              {
                kty: 'EC',
                crv: 'P-256',
                x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
                y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
                kid: 'k1',
                alg: 'ES256',
                use: 'sig',
              },
              { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' },
            ],
          },
        });
        await store.clients.create('t1', byUri);
        await store.clients.create('t1', withoutSecret);
        expect(await store.clients.get('t1', byUri.clientId)).toEqual(byUri);
        expect(await store.clients.get('t1', withoutSecret.clientId)).toEqual(withoutSecret);
        const found = await store.clients.get('t1', byUri.clientId);
        expect(found && 'jwks' in found).toBe(false);
      });

      it('keeps dpopBoundAccessTokens (RFC 9449 §5.2)', async () => {
        const store = await makeStorage();
        const bound = client({ dpopBoundAccessTokens: true });
        await store.clients.create('t1', bound);
        expect(await store.clients.get('t1', bound.clientId)).toEqual(bound);
      });

      it('get returns an expired client as stored (the server compares expiresAt)', async () => {
        const store = await makeStorage();
        const record = client({ registration: 'dynamic', expiresAt: NOW - 1 });
        await store.clients.create('t1', record);
        expect(await store.clients.get('t1', record.clientId)).toEqual(record);
      });

      it('touch sets expiresAt and nothing else; touching an unknown client is a no-op', async () => {
        const store = await makeStorage();
        const record = client({ registration: 'dynamic', expiresAt: NOW + 1000 });
        await store.clients.create('t1', record);
        await store.clients.touch('t1', record.clientId, NOW + 5000);
        expect(await store.clients.get('t1', record.clientId)).toEqual({ ...record, expiresAt: NOW + 5000 });
        await store.clients.touch('t1', 'nope', NOW + 5000);
        expect(await store.clients.get('t1', 'nope')).toBeUndefined();
        await store.clients.touch('t2', record.clientId, NOW + 9000);
        expect((await store.clients.get('t1', record.clientId))?.expiresAt).toBe(NOW + 5000);
      });

      it('countDynamic counts the tenant’s clients whose expiry is after now, and no others', async () => {
        const store = await makeStorage();
        const tenant = unique('tenant');
        expect(await store.clients.countDynamic(tenant, NOW)).toBe(0);
        await store.clients.create(
          tenant,
          client({ clientId: 'd-1', registration: 'dynamic', expiresAt: NOW + 1 }),
        );
        await store.clients.create(
          tenant,
          client({ clientId: 'd-2', registration: 'dynamic', expiresAt: NOW + 9 }),
        );
        await store.clients.create(
          tenant,
          client({ clientId: 'd-3', registration: 'dynamic', expiresAt: NOW }),
        );
        await store.clients.create(tenant, client({ clientId: 'p-1', registration: 'provisioned' }));
        await store.clients.create(`${tenant}x`, client({ clientId: 'd-4', expiresAt: NOW + 9 }));
        expect(await store.clients.countDynamic(tenant, NOW)).toBe(2);
        expect(await store.clients.countDynamic(tenant, NOW + 1)).toBe(1);
        await store.clients.touch(tenant, 'd-3', NOW + 5);
        expect(await store.clients.countDynamic(tenant, NOW)).toBe(3);
        await store.clients.delete(tenant, 'd-1');
        expect(await store.clients.countDynamic(tenant, NOW)).toBe(2);
      });

      it('list pages through the clients of the tenant in client id order', async () => {
        const store = await makeStorage();
        const tenant = unique('tenant');
        const ids = ['c-3', 'c-1', 'c-5', 'c-2', 'c-4'];
        for (const clientId of ids) await store.clients.create(tenant, client({ clientId }));
        await store.clients.create(`${tenant}x`, client({ clientId: 'c-0' }));
        const all = await store.clients.list(tenant);
        expect(all.map((c) => c.clientId)).toEqual(['c-1', 'c-2', 'c-3', 'c-4', 'c-5']);
        expect(all[0]).toEqual(client({ clientId: 'c-1', createdAt: all[0]?.createdAt ?? 0 }));
        const first = await store.clients.list(tenant, { limit: 2 });
        expect(first.map((c) => c.clientId)).toEqual(['c-1', 'c-2']);
        const next = await store.clients.list(tenant, { afterClientId: 'c-2', limit: 2 });
        expect(next.map((c) => c.clientId)).toEqual(['c-3', 'c-4']);
        expect(await store.clients.list(tenant, { afterClientId: 'c-5' })).toEqual([]);
        expect(await store.clients.list(unique('empty'))).toEqual([]);
      });

      it('list returns at most 100 clients by default', async () => {
        const store = await makeStorage();
        const tenant = unique('tenant');
        for (let i = 0; i < 105; i++) {
          await store.clients.create(tenant, client({ clientId: `c-${String(i).padStart(3, '0')}` }));
        }
        const page = await store.clients.list(tenant);
        expect(page).toHaveLength(100);
        expect(page.at(-1)?.clientId).toBe('c-099');
      });

      it('deletes a client', async () => {
        const store = await makeStorage();
        const record = client();
        await store.clients.create('t1', record);
        await store.clients.delete('t1', record.clientId);
        expect(await store.clients.get('t1', record.clientId)).toBeUndefined();
      });
    });

    describe('authorization codes: single use, kept until expiry (OAuth 2.1 §4.1.3)', () => {
      it('consume returns the record unconsumed once and marks it; later consumes see the mark', async () => {
        const store = await makeStorage();
        const record = code();
        await store.authorizationCodes.save('t1', record);
        expect(await store.authorizationCodes.consume('t1', record.codeHash, NOW + 5)).toEqual(record);
        const again = await store.authorizationCodes.consume('t1', record.codeHash, NOW + 9);
        expect(again).toEqual({ ...record, consumedAt: NOW + 5 });
      });

      it('keeps the pre-allocated refresh family and access token jti', async () => {
        const store = await makeStorage();
        const record = code({ familyId: unique('family'), accessTokenJti: unique('jti') });
        await store.authorizationCodes.save('t1', record);
        expect(await store.authorizationCodes.consume('t1', record.codeHash, NOW)).toEqual(record);
        expect(await store.authorizationCodes.consume('t1', record.codeHash, NOW + 1)).toEqual({
          ...record,
          consumedAt: NOW,
        });
      });

      it('keeps the dpop_jkt the code was requested with (RFC 9449 §10)', async () => {
        const store = await makeStorage();
        const record = code({ dpopJkt: '0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I' });
        await store.authorizationCodes.save('t1', record);
        expect(await store.authorizationCodes.consume('t1', record.codeHash, NOW)).toEqual(record);
      });

      it('keeps optional fields absent rather than null', async () => {
        const store = await makeStorage();
        const { nonce: _, ...record } = code();
        await store.authorizationCodes.save('t1', record);
        const found = await store.authorizationCodes.consume('t1', record.codeHash, NOW);
        expect(found).toEqual(record);
        expect(found && ('nonce' in found || 'consumedAt' in found || 'familyId' in found)).toBe(false);
      });

      it('consume returns an expired code too (the caller decides about expiry)', async () => {
        const store = await makeStorage();
        const record = code({ expiresAt: NOW - 1 });
        await store.authorizationCodes.save('t1', record);
        expect(await store.authorizationCodes.consume('t1', record.codeHash, NOW)).toEqual(record);
      });

      it('consume of an unknown code is undefined', async () => {
        const store = await makeStorage();
        expect(await store.authorizationCodes.consume('t1', 'nope', NOW)).toBeUndefined();
      });

      it('exactly one of 50 concurrent consumers sees the code unconsumed; all see it', async () => {
        const store = await makeStorage();
        const record = code();
        await store.authorizationCodes.save('t1', record);
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            store.authorizationCodes.consume('t1', record.codeHash, NOW + i),
          ),
        );
        expect(results.filter((r) => r !== undefined && r.consumedAt === undefined)).toHaveLength(1);
        expect(results.every((r) => r !== undefined)).toBe(true);
      });

      it('scopes codes by tenant', async () => {
        const store = await makeStorage();
        const record = code();
        await store.authorizationCodes.save('t1', record);
        expect(await store.authorizationCodes.consume('t2', record.codeHash, NOW)).toBeUndefined();
        expect(await store.authorizationCodes.consume('t1', record.codeHash, NOW)).toEqual(record);
      });
    });

    describe('pending authorizations', () => {
      it('get leaves the record in place; consume takes it once', async () => {
        const store = await makeStorage();
        const record = pending();
        await store.pendingAuthorizations.save('t1', record);
        expect(await store.pendingAuthorizations.get('t1', record.id)).toEqual(record);
        expect(await store.pendingAuthorizations.get('t1', record.id)).toEqual(record);
        expect(await store.pendingAuthorizations.consume('t1', record.id)).toEqual(record);
        expect(await store.pendingAuthorizations.get('t1', record.id)).toBeUndefined();
        expect(await store.pendingAuthorizations.consume('t1', record.id)).toBeUndefined();
      });

      it('keeps the dpop_jkt of the request (RFC 9449 §10)', async () => {
        const store = await makeStorage();
        const record = pending({ dpopJkt: '0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I' });
        await store.pendingAuthorizations.save('t1', record);
        expect(await store.pendingAuthorizations.consume('t1', record.id)).toEqual(record);
      });

      it('exactly one of 50 concurrent consumers gets the request', async () => {
        const store = await makeStorage();
        const record = pending();
        await store.pendingAuthorizations.save('t1', record);
        const results = await Promise.all(
          Array.from({ length: 50 }, () => store.pendingAuthorizations.consume('t1', record.id)),
        );
        expect(results.filter((r) => r !== undefined)).toHaveLength(1);
      });
    });

    describe('refresh tokens: rotation and families', () => {
      function rotation(record: RefreshTokenRecord, overrides: Partial<RefreshTokenRotation> = {}) {
        return {
          tokenHash: record.tokenHash,
          clientId: record.clientId,
          now: NOW + 5,
          successorHash: unique('rt-next'),
          successorExpiresAt: NOW + 5 + 30 * 86_400_000,
          sealedSuccessor: unique('r1.sealed'),
          ...overrides,
        } satisfies RefreshTokenRotation;
      }

      it('save and get keep every field, the sealed successor included', async () => {
        const store = await makeStorage();
        const record = refresh({ consumedAt: NOW + 1, revokedAt: NOW + 2, sealedSuccessor: 'r1.abc' });
        await store.refreshTokens.save('t1', record);
        expect(await store.refreshTokens.get('t1', record.tokenHash)).toEqual(record);
        const plain = refresh();
        await store.refreshTokens.save('t1', plain);
        const found = await store.refreshTokens.get('t1', plain.tokenHash);
        expect(found).toEqual(plain);
        expect(found && ('consumedAt' in found || 'revokedAt' in found || 'sealedSuccessor' in found)).toBe(
          false,
        );
      });

      it('rotate consumes an active token, keeps its sealed successor and saves the successor', async () => {
        const store = await makeStorage();
        const record = refresh();
        await store.refreshTokens.save('t1', record);
        const r = rotation(record);
        expect(await store.refreshTokens.rotate('t1', r)).toEqual({ ok: true, previous: record });
        expect(await store.refreshTokens.get('t1', record.tokenHash)).toEqual({
          ...record,
          consumedAt: r.now,
          sealedSuccessor: r.sealedSuccessor,
        });
        const { tokenHash: _, createdAt: __, expiresAt: ___, ...inherited } = record;
        const successor = await store.refreshTokens.get('t1', r.successorHash);
        expect(successor).toEqual({
          ...inherited,
          tokenHash: r.successorHash,
          createdAt: r.now,
          expiresAt: r.successorExpiresAt,
        });
        expect(successor && ('consumedAt' in successor || 'sealedSuccessor' in successor)).toBe(false);
      });

      it('rotate carries a DPoP key binding (jkt) to the successor (RFC 9449 §5)', async () => {
        const store = await makeStorage();
        const record = refresh({ jkt: '0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I' });
        await store.refreshTokens.save('t1', record);
        expect(await store.refreshTokens.get('t1', record.tokenHash)).toEqual(record);
        const r = rotation(record);
        expect(await store.refreshTokens.rotate('t1', r)).toEqual({ ok: true, previous: record });
        expect((await store.refreshTokens.get('t1', r.successorHash))?.jkt).toBe(record.jkt);
      });

      it('rotate without a sealed successor stores none', async () => {
        const store = await makeStorage();
        const record = refresh();
        await store.refreshTokens.save('t1', record);
        const { sealedSuccessor: _, ...r } = rotation(record);
        expect((await store.refreshTokens.rotate('t1', r)).ok).toBe(true);
        const found = await store.refreshTokens.get('t1', record.tokenHash);
        expect(found?.consumedAt).toBe(r.now);
        expect(found && 'sealedSuccessor' in found).toBe(false);
      });

      it("a second rotate is refused with the first one's mark and writes no second successor", async () => {
        const store = await makeStorage();
        const record = refresh();
        await store.refreshTokens.save('t1', record);
        const first = rotation(record);
        await store.refreshTokens.rotate('t1', first);
        const second = rotation(record, { now: NOW + 9 });
        expect(await store.refreshTokens.rotate('t1', second)).toEqual({
          ok: false,
          reason: 'refused',
          current: { ...record, consumedAt: first.now, sealedSuccessor: first.sealedSuccessor },
        });
        expect(await store.refreshTokens.get('t1', second.successorHash)).toBeUndefined();
      });

      it("rotate refuses a revoked, an expired or another client's token and writes nothing", async () => {
        const store = await makeStorage();
        const revoked = refresh({ revokedAt: NOW });
        const expired = refresh({ expiresAt: NOW + 5 });
        const others = refresh({ clientId: 'client-2' });
        for (const r of [revoked, expired, others]) await store.refreshTokens.save('t1', r);
        for (const [record, r] of [
          [revoked, rotation(revoked)],
          [expired, rotation(expired, { now: NOW + 5 })],
          [others, rotation(others, { clientId: 'client-1' })],
        ] as const) {
          expect(await store.refreshTokens.rotate('t1', r)).toEqual({
            ok: false,
            reason: 'refused',
            current: record,
          });
          expect(await store.refreshTokens.get('t1', record.tokenHash)).toEqual(record);
          expect(await store.refreshTokens.get('t1', r.successorHash)).toBeUndefined();
        }
      });

      it('rotate of an unknown token is unknown', async () => {
        const store = await makeStorage();
        const r = rotation(refresh());
        expect(await store.refreshTokens.rotate('t1', r)).toEqual({ ok: false, reason: 'unknown' });
        expect(await store.refreshTokens.get('t1', r.successorHash)).toBeUndefined();
      });

      it("rotate is scoped by tenant, and the successor lives in the token's tenant", async () => {
        const store = await makeStorage();
        const record = refresh();
        await store.refreshTokens.save('t1', record);
        expect(await store.refreshTokens.rotate('t2', rotation(record))).toEqual({
          ok: false,
          reason: 'unknown',
        });
        const r = rotation(record);
        expect((await store.refreshTokens.rotate('t1', r)).ok).toBe(true);
        expect(await store.refreshTokens.get('t2', r.successorHash)).toBeUndefined();
        expect(await store.refreshTokens.get('t1', r.successorHash)).toBeDefined();
      });

      for (const racers of [2, 50]) {
        it(`of ${racers} concurrent rotations exactly one rotates and one successor exists; the others see its mark`, async () => {
          const store = await makeStorage();
          const record = refresh();
          await store.refreshTokens.save('t1', record);
          const rotations = Array.from({ length: racers }, (_, i) => rotation(record, { now: NOW + i }));
          const outcomes = await Promise.all(rotations.map((r) => store.refreshTokens.rotate('t1', r)));
          const winners = rotations.filter((_, i) => outcomes[i]?.ok === true);
          expect(winners).toHaveLength(1);
          const winner = winners[0] as RefreshTokenRotation;
          for (const outcome of outcomes) {
            if (outcome.ok) continue;
            expect(outcome).toEqual({
              ok: false,
              reason: 'refused',
              current: { ...record, consumedAt: winner.now, sealedSuccessor: winner.sealedSuccessor },
            });
          }
          const successors = await Promise.all(
            rotations.map((r) => store.refreshTokens.get('t1', r.successorHash)),
          );
          expect(successors.filter((s) => s !== undefined).map((s) => s?.tokenHash)).toEqual([
            winner.successorHash,
          ]);
        });
      }

      it('restampRotation moves a rotated token’s mark later, never earlier, and leaves the rest as it is', async () => {
        const store = await makeStorage();
        const restamp = store.refreshTokens.restampRotation;
        expect(typeof restamp).toBe('function');
        const record = refresh();
        await store.refreshTokens.save('t1', record);
        const r = rotation(record);
        await store.refreshTokens.rotate('t1', r);
        await store.refreshTokens.restampRotation?.('t1', record.tokenHash, NOW + 6_000);
        const moved = { ...record, consumedAt: NOW + 6_000, sealedSuccessor: r.sealedSuccessor };
        expect(await store.refreshTokens.get('t1', record.tokenHash)).toEqual(moved);
        await store.refreshTokens.restampRotation?.('t1', record.tokenHash, NOW + 10);
        expect(await store.refreshTokens.get('t1', record.tokenHash)).toEqual(moved);
        // The successor is untouched.
        expect((await store.refreshTokens.get('t1', r.successorHash))?.createdAt).toBe(r.now);
      });

      it('restampRotation leaves a token never rotated, another tenant’s and an unknown one alone', async () => {
        const store = await makeStorage();
        const record = refresh();
        await store.refreshTokens.save('t1', record);
        await store.refreshTokens.restampRotation?.('t1', record.tokenHash, NOW + 6_000);
        expect(await store.refreshTokens.get('t1', record.tokenHash)).toEqual(record);
        const rotated = refresh({ consumedAt: NOW + 1 });
        await store.refreshTokens.save('t1', rotated);
        await store.refreshTokens.restampRotation?.('t2', rotated.tokenHash, NOW + 6_000);
        expect((await store.refreshTokens.get('t1', rotated.tokenHash))?.consumedAt).toBe(NOW + 1);
        await store.refreshTokens.restampRotation?.('t1', unique('rt-unknown'), NOW + 6_000);
        expect(await store.refreshTokens.get('t1', unique('rt-unknown'))).toBeUndefined();
      });

      it('revokeFamily reaches successors saved by rotate', async () => {
        const store = await makeStorage();
        const record = refresh();
        await store.refreshTokens.save('t1', record);
        const r = rotation(record);
        await store.refreshTokens.rotate('t1', r);
        await store.refreshTokens.revokeFamily('t1', record.familyId, NOW + 7);
        expect((await store.refreshTokens.get('t1', r.successorHash))?.revokedAt).toBe(NOW + 7);
        expect((await store.refreshTokens.get('t1', record.tokenHash))?.revokedAt).toBe(NOW + 7);
      });

      it('revokeFamily marks every member of the family and no other token', async () => {
        const store = await makeStorage();
        const first = refresh();
        const second = refresh({ familyId: first.familyId });
        const other = refresh();
        for (const r of [first, second, other]) await store.refreshTokens.save('t1', r);
        await store.refreshTokens.revokeFamily('t1', first.familyId, NOW + 1);
        expect((await store.refreshTokens.get('t1', first.tokenHash))?.revokedAt).toBe(NOW + 1);
        expect((await store.refreshTokens.get('t1', second.tokenHash))?.revokedAt).toBe(NOW + 1);
        expect((await store.refreshTokens.get('t1', other.tokenHash))?.revokedAt).toBeUndefined();
      });

      it('a revoked token keeps its first revocation time', async () => {
        const store = await makeStorage();
        const record = refresh();
        await store.refreshTokens.save('t1', record);
        await store.refreshTokens.revokeFamily('t1', record.familyId, NOW + 1);
        await store.refreshTokens.revokeFamily('t1', record.familyId, NOW + 2);
        expect((await store.refreshTokens.get('t1', record.tokenHash))?.revokedAt).toBe(NOW + 1);
      });

      it('scopes refresh tokens and families by tenant', async () => {
        const store = await makeStorage();
        const record = refresh();
        await store.refreshTokens.save('t1', record);
        await store.refreshTokens.save('t2', record);
        await store.refreshTokens.revokeFamily('t2', record.familyId, NOW);
        expect((await store.refreshTokens.get('t1', record.tokenHash))?.revokedAt).toBeUndefined();
        expect(await store.refreshTokens.get('t3', record.tokenHash)).toBeUndefined();
      });
    });

    describe('consents', () => {
      it('lists unexpired consents of the user for the client only', async () => {
        const store = await makeStorage();
        const base = { userId: 'u1', clientId: 'https://app.example/c.json', grantedAt: NOW };
        await store.consents.save('t1', { ...base, scopes: ['mcp', 'openid'], expiresAt: NOW + 1000 });
        await store.consents.save('t1', { ...base, scopes: ['email'], expiresAt: NOW - 1 });
        await store.consents.save('t1', { ...base, userId: 'u2', scopes: ['x'], expiresAt: NOW + 1000 });
        const listed = await store.consents.list('t1', 'u1', base.clientId, NOW);
        expect(listed).toEqual([{ ...base, scopes: ['mcp', 'openid'], expiresAt: NOW + 1000 }]);
      });

      it('saving the same scope set again replaces the record', async () => {
        const store = await makeStorage();
        const base = { userId: 'u1', clientId: 'c1', scopes: ['openid'] };
        await store.consents.save('t1', { ...base, grantedAt: NOW, expiresAt: NOW + 10 });
        await store.consents.save('t1', { ...base, grantedAt: NOW + 5, expiresAt: NOW + 20 });
        expect(await store.consents.list('t1', 'u1', 'c1', NOW)).toEqual([
          { ...base, grantedAt: NOW + 5, expiresAt: NOW + 20 },
        ]);
      });

      it('delete forgets every consent of the user for the client', async () => {
        const store = await makeStorage();
        await store.consents.save('t1', {
          userId: 'u1',
          clientId: 'c1',
          scopes: ['a'],
          grantedAt: NOW,
          expiresAt: NOW + 10,
        });
        await store.consents.save('t1', {
          userId: 'u1',
          clientId: 'c2',
          scopes: ['a'],
          grantedAt: NOW,
          expiresAt: NOW + 10,
        });
        await store.consents.delete('t1', 'u1', 'c1');
        expect(await store.consents.list('t1', 'u1', 'c1', NOW)).toEqual([]);
        expect(await store.consents.list('t1', 'u1', 'c2', NOW)).toHaveLength(1);
      });
    });

    describeOnceStoreConformance(name, async () => {
      const store = await makeStorage();
      if (!store.onceStore) {
        throw new Error('the storage has no onceStore (private_key_jwt needs one)');
      }
      return store.onceStore;
    });

    describeGrantStoreConformance(makeStorage, options.twoInstances);
    describeEventStoreConformance(makeStorage);

    describe('revoked access tokens', () => {
      it('a revoked jti is revoked until its expiry, and no other jti is', async () => {
        const store = await makeStorage();
        await store.revokedAccessTokens.revoke('t1', 'jti-1', NOW + 1000);
        expect(await store.revokedAccessTokens.isRevoked('t1', 'jti-1', NOW)).toBe(true);
        expect(await store.revokedAccessTokens.isRevoked('t1', 'jti-2', NOW)).toBe(false);
        expect(await store.revokedAccessTokens.isRevoked('t2', 'jti-1', NOW)).toBe(false);
      });
    });
  });
}

export {
  describeLoginTransactionStoreConformance,
  describeUserStoreConformance,
} from './federated/testing.js';
export { describeRefreshReuseConformance } from './refresh-reuse-testing.js';
