import type { HandlerResult, ManualClock } from '@keyhold/core';
import { createManualClock } from '@keyhold/core';
import { formEncode, randomToken, sha256Base64url } from '@keyhold/internal';
import { describe, expect, it } from 'vitest';
import { createAuthorizationServerWithEndpoints } from './authorization-server.js';
import type { SigningKeyConfig } from './keys.js';
import { generateSigningKey } from './keys.js';
import type { OAuthStorage } from './storage.js';

const START = Date.parse('2026-01-01T00:00:00Z');
const WINDOW_SECONDS = 5;
const TENANT = 'reuse';

interface Harness {
  readonly storage: OAuthStorage;
  readonly clock: ManualClock;
  /** Every successor hash any rotation proposed, winner or not. */
  readonly proposedSuccessors: string[];
  /** What the server logged, level and message, in order. */
  readonly logged: { readonly level: string; readonly message: string }[];
  /** From now on every `rotate` advances the clock by `ms` before it returns: a commit that slow. */
  slowCommits(ms: number): void;
  /** A fresh public client and a refresh token of a new family seeded for it. */
  seed(): Promise<{ clientId: string; token: string; familyId: string }>;
  refresh(clientId: string, token: string): Promise<HandlerResult>;
  createClient(): Promise<string>;
}

async function harness(
  makeStorage: () => OAuthStorage | Promise<OAuthStorage>,
  key: SigningKeyConfig,
  refreshReuseWindowSeconds: number,
): Promise<Harness> {
  const inner = await makeStorage();
  const proposedSuccessors: string[] = [];
  const logged: { level: string; message: string }[] = [];
  const log =
    (level: string) =>
    (_fields: Record<string, unknown>, message?: string): void => {
      logged.push({ level, message: message ?? '' });
    };
  const clock = createManualClock(START);
  let commitMs = 0;
  // The store as the server sees it, recording each successor a rotation proposes so the test can count
  // how many of them really exist afterwards.
  const storage: OAuthStorage = {
    ...inner,
    refreshTokens: {
      save: (tenant, record) => inner.refreshTokens.save(tenant, record),
      get: (tenant, tokenHash) => inner.refreshTokens.get(tenant, tokenHash),
      revokeFamily: (tenant, familyId, now) => inner.refreshTokens.revokeFamily(tenant, familyId, now),
      rotate: async (tenant, rotation) => {
        proposedSuccessors.push(rotation.successorHash);
        const outcome = await inner.refreshTokens.rotate(tenant, rotation);
        clock.advance(commitMs);
        return outcome;
      },
      ...(inner.refreshTokens.restampRotation === undefined
        ? {}
        : {
            restampRotation: (tenant: string, tokenHash: string, rotatedAt: number) =>
              inner.refreshTokens.restampRotation!(tenant, tokenHash, rotatedAt),
          }),
    },
  };
  const tenant = { signingKeys: [key], resourceScopes: [] };
  const server = createAuthorizationServerWithEndpoints({
    baseUrl: 'https://auth.example',
    tenants: { get: (slug) => (slug === TENANT ? tenant : undefined) },
    storage,
    clock,
    refreshReuseWindowSeconds,
    logger: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
  });
  const createClient = async () => {
    const clientId = `reuse-client-${randomToken(16)}`;
    await storage.clients.create(TENANT, {
      clientId,
      redirectUris: ['https://app.example/callback'],
      grantTypes: ['authorization_code', 'refresh_token'],
      responseTypes: ['code'],
      tokenEndpointAuthMethod: 'none',
      createdAt: clock.now(),
    });
    return clientId;
  };
  return {
    storage: inner,
    clock,
    proposedSuccessors,
    logged,
    slowCommits(ms) {
      commitMs = ms;
    },
    createClient,
    async seed() {
      const clientId = await createClient();
      const token = randomToken();
      const familyId = `family-${randomToken(16)}`;
      await storage.refreshTokens.save(TENANT, {
        tokenHash: sha256Base64url(token),
        familyId,
        clientId,
        clientType: 'registered',
        userId: 'user-1',
        scope: 'mcp openid',
        resources: [],
        createdAt: clock.now(),
        expiresAt: clock.now() + 30 * 86_400_000,
      });
      return { clientId, token, familyId };
    },
    refresh: (clientId, token) =>
      server.token(
        {
          method: 'POST',
          path: `/tenant/${TENANT}/token`,
          query: '',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: formEncode({ grant_type: 'refresh_token', refresh_token: token, client_id: clientId }),
        },
        TENANT,
      ),
  };
}

function body(result: HandlerResult): Record<string, unknown> {
  return JSON.parse(result.body ?? '{}') as Record<string, unknown>;
}

function subjectOf(accessToken: unknown): unknown {
  const payload = String(accessToken).split('.')[1] ?? '';
  return (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { sub?: unknown }).sub;
}

/** How many of the proposed successors really exist in the store. */
async function existingSuccessors(h: Harness): Promise<number> {
  const found = await Promise.all(
    h.proposedSuccessors.map((hash) => h.storage.refreshTokens.get(TENANT, hash)),
  );
  return found.filter((record) => record !== undefined).length;
}

/**
 * The refresh reuse window (`refreshReuseWindowSeconds`) end to end through the token endpoint, on a real
 * store: racing presentations of one refresh token inside the window all get the same successor and
 * exactly one successor exists; after the window, or once the successor was used, or from another client,
 * a presentation revokes the family. Every store package runs it beside
 * {@link describeOAuthStorageConformance}; `makeStorage` is called once per test. Time comes from a manual
 * clock: nothing sleeps.
 *
 * @example
 * ```ts
 * import { describeRefreshReuseConformance } from '@keyhold/oauth-core/testing';
 * describeRefreshReuseConformance('sqlite', () => createSqliteOAuthStorage(openSqliteDatabase(':memory:')));
 * ```
 */
export function describeRefreshReuseConformance(
  name: string,
  makeStorage: () => OAuthStorage | Promise<OAuthStorage>,
): void {
  describe(`refresh reuse window conformance: ${name}`, () => {
    let key: SigningKeyConfig | undefined;
    const signingKey = async () => {
      key ??= await generateSigningKey('ES256', 'reuse-k1');
      return key;
    };

    for (const racers of [2, 50]) {
      it(`inside the window: ${racers} racing presentations all succeed with one and the same successor`, async () => {
        const h = await harness(makeStorage, await signingKey(), WINDOW_SECONDS);
        const { clientId, token } = await h.seed();
        const results = await Promise.all(Array.from({ length: racers }, () => h.refresh(clientId, token)));
        expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
        const bodies = results.map(body);
        const successors = new Set(bodies.map((b) => b.refresh_token));
        expect(successors.size).toBe(1);
        const [successor] = successors;
        expect(successor).not.toBe(token);
        expect(new Set(bodies.map((b) => subjectOf(b.access_token)))).toEqual(new Set(['user-1']));
        expect(await existingSuccessors(h)).toBe(1);
        const stored = await h.storage.refreshTokens.get(TENANT, sha256Base64url(String(successor)));
        expect(stored?.consumedAt).toBeUndefined();
        expect(stored?.revokedAt).toBeUndefined();
        // The successor every caller holds is live: it rotates normally.
        expect((await h.refresh(clientId, String(successor))).status).toBe(200);
      });

      it(`after the window: ${racers} racing presentations are refused and the family is revoked`, async () => {
        const h = await harness(makeStorage, await signingKey(), WINDOW_SECONDS);
        const { clientId, token } = await h.seed();
        const first = body(await h.refresh(clientId, token));
        h.clock.advance(WINDOW_SECONDS * 1000);
        const results = await Promise.all(Array.from({ length: racers }, () => h.refresh(clientId, token)));
        expect(results.map((r) => body(r).error)).toEqual(results.map(() => 'invalid_grant'));
        expect(await existingSuccessors(h)).toBe(1);
        const successor = await h.storage.refreshTokens.get(
          TENANT,
          sha256Base64url(String(first.refresh_token)),
        );
        expect(successor?.revokedAt).toBe(h.clock.now());
        expect(body(await h.refresh(clientId, String(first.refresh_token))).error).toBe('invalid_grant');
      });
    }

    it('the last millisecond inside the window still returns the same successor', async () => {
      const h = await harness(makeStorage, await signingKey(), WINDOW_SECONDS);
      const { clientId, token } = await h.seed();
      const first = body(await h.refresh(clientId, token));
      h.clock.advance(WINDOW_SECONDS * 1000 - 1);
      const again = body(await h.refresh(clientId, token));
      expect(again.refresh_token).toBe(first.refresh_token);
      expect(again.access_token).toEqual(expect.any(String));
    });

    it('once the successor has been used, presenting the old token revokes the family', async () => {
      const h = await harness(makeStorage, await signingKey(), WINDOW_SECONDS);
      const { clientId, token } = await h.seed();
      const first = body(await h.refresh(clientId, token));
      const second = body(await h.refresh(clientId, String(first.refresh_token)));
      expect(body(await h.refresh(clientId, token)).error).toBe('invalid_grant');
      const newest = await h.storage.refreshTokens.get(TENANT, sha256Base64url(String(second.refresh_token)));
      expect(newest?.revokedAt).toBeDefined();
    });

    it('another client presenting the token inside the window is refused and revokes the family', async () => {
      const h = await harness(makeStorage, await signingKey(), WINDOW_SECONDS);
      const { clientId, token } = await h.seed();
      const first = body(await h.refresh(clientId, token));
      const other = await h.createClient();
      expect(body(await h.refresh(other, token)).error).toBe('invalid_grant');
      expect(body(await h.refresh(clientId, String(first.refresh_token))).error).toBe('invalid_grant');
    });

    it('the window starts at the commit: a retry after a commit slower than the window gets the same successor, the family lives', async () => {
      const h = await harness(makeStorage, await signingKey(), WINDOW_SECONDS);
      const { clientId, token } = await h.seed();
      // The first refresh commits 2 s after the window would have ended had it counted from the request.
      h.slowCommits(WINDOW_SECONDS * 1000 + 2_000);
      const first = body(await h.refresh(clientId, token));
      h.slowCommits(0);
      // The client timed out before that answer came, and retries with the same token.
      h.clock.advance(WINDOW_SECONDS * 1000 - 1);
      const retry = body(await h.refresh(clientId, token));
      expect(retry.refresh_token).toBe(first.refresh_token);
      expect(await existingSuccessors(h)).toBe(1);
      const successor = await h.storage.refreshTokens.get(
        TENANT,
        sha256Base64url(String(first.refresh_token)),
      );
      expect(successor?.revokedAt).toBeUndefined();
      expect(h.logged.filter((line) => /replay/i.test(line.message))).toEqual([]);
      expect((await h.refresh(clientId, String(first.refresh_token))).status).toBe(200);
    });

    it('after a slow commit, a presentation after the window counted from the commit is still a replay', async () => {
      const h = await harness(makeStorage, await signingKey(), WINDOW_SECONDS);
      const { clientId, token } = await h.seed();
      h.slowCommits(WINDOW_SECONDS * 1000 + 2_000);
      const first = body(await h.refresh(clientId, token));
      h.slowCommits(0);
      h.clock.advance(WINDOW_SECONDS * 1000);
      expect(body(await h.refresh(clientId, token)).error).toBe('invalid_grant');
      const successor = await h.storage.refreshTokens.get(
        TENANT,
        sha256Base64url(String(first.refresh_token)),
      );
      expect(successor?.revokedAt).toBe(h.clock.now());
      expect(h.logged.filter((line) => line.level === 'warn').map((line) => line.message)).toEqual([
        'refresh token replayed: token family revoked',
      ]);
    });

    it('with the window at 0, a second presentation revokes the family at once', async () => {
      const h = await harness(makeStorage, await signingKey(), 0);
      const { clientId, token } = await h.seed();
      const results = await Promise.all([h.refresh(clientId, token), h.refresh(clientId, token)]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
      const issued = results.map(body).find((b) => b.refresh_token !== undefined);
      expect(body(await h.refresh(clientId, String(issued?.refresh_token))).error).toBe('invalid_grant');
    });
  });
}
