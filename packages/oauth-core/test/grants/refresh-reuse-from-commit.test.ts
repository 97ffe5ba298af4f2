import { sha256Base64url } from '@keyhold/internal';
import { describe, expect, it } from 'vitest';
import type { OAuthStorage } from '../../src/index.js';
import { createMemoryStorage } from '../../src/index.js';
import { createTestServer, exchangeCode, json, obtainCode, postForm, registerClient } from '../helpers.js';

/**
 * A store whose next rotation commits slowly: the rotation is written at once (as the database would hold
 * its row lock), the caller is answered only once `release()` is called, and the manual clock has moved by
 * `commitMs` by then. A rotation refused meanwhile (a retry that waited on that row lock) is answered
 * together with the slow one, after its restamp landed.
 */
function slowCommitStorage(inner: OAuthStorage, advance: (ms: number) => void) {
  let slow: { commitMs: number } | undefined;
  let release: () => void = () => {};
  let restamped: () => void = () => {};
  let entered: () => void = () => {};
  const slowRotationEntered = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const restampLanded = new Promise<void>((resolve) => {
    restamped = resolve;
  });
  const storage: OAuthStorage = {
    ...inner,
    refreshTokens: {
      save: (tenant, record) => inner.refreshTokens.save(tenant, record),
      get: (tenant, tokenHash) => inner.refreshTokens.get(tenant, tokenHash),
      revokeFamily: (tenant, familyId, now) => inner.refreshTokens.revokeFamily(tenant, familyId, now),
      async restampRotation(tenant, tokenHash, rotatedAt) {
        await inner.refreshTokens.restampRotation?.(tenant, tokenHash, rotatedAt);
        restamped();
      },
      async rotate(tenant, rotation) {
        const outcome = await inner.refreshTokens.rotate(tenant, rotation);
        if (slow !== undefined && outcome.ok) {
          const { commitMs } = slow;
          slow = undefined;
          entered();
          await released;
          advance(commitMs);
          return outcome;
        }
        if (!outcome.ok) {
          // The retry waited on the slow rotation's row lock: it is answered at that commit, and (the case
          // the grant's re-read is for) its caller looks again only after the restamp landed.
          release();
          await restampLanded;
        }
        return outcome;
      },
    },
  };
  return {
    storage,
    slowNextCommit(commitMs: number) {
      slow = { commitMs };
    },
    slowRotationEntered,
  };
}

async function setup() {
  let advance: (ms: number) => void = () => {};
  const slow = slowCommitStorage(createMemoryStorage(), (ms) => advance(ms));
  const t = await createTestServer({ options: { storage: slow.storage } });
  advance = (ms) => t.clock.advance(ms);
  const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
  const { code, verifier } = await obtainCode(t, client.client_id);
  const token = String(json(await exchangeCode(t, client, code, verifier)).refresh_token);
  const refresh = (presented: string) =>
    t.server.token(
      postForm('/tenant/demo/token', {
        grant_type: 'refresh_token',
        refresh_token: presented,
        client_id: client.client_id,
      }),
      'demo',
    );
  return { t, slow, token, refresh };
}

describe('refresh reuse window: it starts at the rotation’s commit, also for a retry racing that commit', () => {
  it('a retry sent after the window counted from the request, while the slow commit is still running, gets the same successor', async () => {
    const { t, slow, token, refresh } = await setup();
    slow.slowNextCommit(7_000);
    const first = refresh(token);
    await slow.slowRotationEntered;
    // The client gave up after 6 s and retries; its rotation waits on the first one's row lock.
    t.clock.advance(6_000);
    const retry = refresh(token);
    const [a, b] = await Promise.all([first, retry]);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(json(b).refresh_token).toBe(json(a).refresh_token);
    const successor = await slow.storage.refreshTokens.get(
      'demo',
      sha256Base64url(String(json(a).refresh_token)),
    );
    expect(successor).toBeDefined();
    expect(successor?.revokedAt).toBeUndefined();
    expect((await refresh(String(json(a).refresh_token))).status).toBe(200);
  });
});
