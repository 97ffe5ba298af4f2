import type { Logger } from '@keyhold/core';
import { createManualClock } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import type { TokenVaultError } from '../src/index.js';
import { createKmsVault, createLocalVault, createMemoryBrokerStorage } from '../src/index.js';
import { grantLockKey } from '../src/refresh.js';
import {
  ACME_TOKEN,
  ACME_ASK as ask,
  authorizeInBrowser,
  connectGrant,
  elicitationOf,
  makeHarness,
  mockTokenEndpoint,
  T0,
  tokenResponse,
} from './fixtures.js';
import { useProviderServer } from './provider-server.js';
import { createTestKms } from './test-kms.js';

const server = useProviderServer();

const MINUTE = 60_000;

describe('Key rotation: rewrapGrants re-encrypts every grant of a tenant to the newest key', () => {
  it('local vault: grants move from k1 to k2 and still answer asks', async () => {
    const storage = createMemoryBrokerStorage();
    const clock = createManualClock(T0);
    const k1 = 'the-first-master-key-is-32-bytes-long!!';
    const before = makeHarness(
      { vault: createLocalVault({ masterKey: k1, scryptCost: 1024 }) },
      { storage, clock },
    );
    await connectGrant(server, before);

    const after = makeHarness(
      {
        vault: createLocalVault({
          masterKey: 'the-second-master-key-is-32-bytes-long!',
          masterKeyId: 'k2',
          previousMasterKeys: { k1 },
          scryptCost: 1024,
        }),
      },
      { storage, clock },
    );
    expect(await after.broker.rewrapGrants('tenant-a')).toEqual({ rewrapped: 1, skipped: 0 });
    const [grant] = await storage.grants.list({ tenantId: 'tenant-a' });
    expect(grant?.accessTokenEncrypted.startsWith('v1.k2.')).toBe(true);
    expect(grant?.refreshTokenEncrypted?.startsWith('v1.k2.')).toBe(true);
    const onlyK2 = makeHarness(
      {
        vault: createLocalVault({
          masterKey: 'the-second-master-key-is-32-bytes-long!',
          masterKeyId: 'k2',
          scryptCost: 1024,
        }),
      },
      { storage, clock },
    );
    expect(await onlyK2.broker.requestToken(ask, onlyK2.context)).toEqual({
      ok: true,
      accessToken: 'access-1',
    });
  });

  it('KMS vault: a whole flow works in envelope mode', async () => {
    const harness = makeHarness({ vault: createKmsVault({ kms: createTestKms() }) });
    await connectGrant(server, harness, { access_token: 'access-kms', expires_in: 3600 });
    expect(await harness.broker.requestToken(ask, harness.context)).toEqual({
      ok: true,
      accessToken: 'access-kms',
    });
    const [grant] = await harness.storage.grants.list({ tenantId: 'tenant-a' });
    expect(grant?.accessTokenEncrypted.startsWith('v1k.')).toBe(true);
  });
});

describe('Cross-process refresh when the lease holder disappears', () => {
  it('a waiting process takes over once the dead holder’s lease expires', async () => {
    const harness = makeHarness({ refreshLockTtlMs: 30_000 });
    await connectGrant(server, harness);
    harness.clock.advance(56 * MINUTE);
    const key = { ...harness.context, provider: 'acme', scopes: ['read'] };
    const now = harness.clock.now();
    // A process that took the lease and crashed.
    expect(await harness.storage.refreshLock.acquire(grantLockKey(key), now, now + 30_000)).toBeDefined();
    const log = mockTokenEndpoint(server, ACME_TOKEN, () =>
      tokenResponse({ access_token: 'access-2', expires_in: 3600 }),
    );
    const pending = harness.broker.requestToken(ask, harness.context);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(log).toHaveLength(0);
    harness.clock.advance(30_000);
    expect(await pending).toEqual({ ok: true, accessToken: 'access-2' });
    expect(log).toHaveLength(1);
  });

  it('gives up with ERR_REFRESH_TIMEOUT when the lease never frees', async () => {
    const harness = makeHarness({ refreshLockTtlMs: 40 });
    await connectGrant(server, harness);
    harness.clock.advance(56 * MINUTE);
    const key = { ...harness.context, provider: 'acme', scopes: ['read'] };
    const now = harness.clock.now();
    await harness.storage.refreshLock.acquire(grantLockKey(key), now, now + 10 * MINUTE);
    const error = (await harness.broker
      .requestToken(ask, harness.context)
      .catch((e: unknown) => e)) as TokenVaultError;
    expect(error.code).toBe('ERR_REFRESH_TIMEOUT');
  });
});

describe('Secrets are never logged', () => {
  it('a full flow with refresh and a refusal logs ids but no token, code, verifier, state or secret', async () => {
    const lines: string[] = [];
    const record = (fields: Record<string, unknown>, message?: string) => {
      lines.push(JSON.stringify({ fields, message }));
    };
    const logger: Logger = { debug: record, info: record, warn: record, error: record };
    const harness = makeHarness({ logger });
    mockTokenEndpoint(server, ACME_TOKEN, () =>
      tokenResponse({ access_token: 'SECRET-access-1', refresh_token: 'SECRET-refresh-1', expires_in: 3600 }),
    );
    const error = await elicitationOf(harness.broker.requestToken(ask, harness.context));
    const { callback, authorizationUrl } = await authorizeInBrowser(
      harness.broker,
      error.elicitationUrl,
      'user-1',
      'SECRET-code',
    );
    await harness.broker.callback(callback);
    server.resetHandlers();
    harness.clock.advance(56 * MINUTE);
    mockTokenEndpoint(server, ACME_TOKEN, () => tokenResponse({ error: 'invalid_grant' }, 400));
    await harness.broker.requestToken(ask, harness.context).catch(() => undefined);

    const all = lines.join('\n');
    expect(lines.length).toBeGreaterThan(3);
    expect(all).toContain(error.elicitationId);
    for (const secret of [
      'SECRET',
      'acme-secret',
      authorizationUrl.searchParams.get('state')!,
      authorizationUrl.searchParams.get('code_challenge')!,
    ]) {
      expect(all).not.toContain(secret);
    }
  });
});
