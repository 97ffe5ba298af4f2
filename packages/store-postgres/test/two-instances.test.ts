import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresClaimStore } from '../src/claim-store.js';
import { createPostgresUserStore } from '../src/federated-store.js';
import { createPostgresOAuthStorage } from '../src/oauth-store.js';
import { createPostgresTokenVaultStorage } from '../src/token-vault-store.js';
import { POSTGRES_URL, requirePostgres, useIsolatedPool } from './postgres.js';

const available = await requirePostgres();

describe.skipIf(!available)('two instances, each with its own pool, on one database', () => {
  const db = useIsolatedPool();
  let second: pg.Pool;
  beforeAll(async () => {
    const schema = ((await db.pool.query('SELECT current_schema() AS s')).rows[0] as { s: string }).s;
    second = new pg.Pool({ connectionString: POSTGRES_URL, options: `-c search_path=${schema}`, max: 10 });
  });
  // After hooks run in reverse: this pool ends before the isolated one drops the schema.
  afterAll(async () => {
    await second?.end();
  });

  /** Runs `attempt` 25 times on each instance at once. */
  async function race<T>(
    make: (pool: pg.Pool) => Promise<T>,
    attempt: (store: T, i: number) => Promise<boolean>,
  ) {
    const stores = await Promise.all([make(db.pool), make(second)]);
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => attempt(stores[i % 2] as T, i)));
    return results.filter(Boolean).length;
  }

  it('50 rotations of one token split across both: exactly one rotates, one successor exists, the others see its mark', async () => {
    const oauth = await createPostgresOAuthStorage(db.pool);
    await oauth.refreshTokens.save('t', {
      tokenHash: 'shared',
      familyId: 'f',
      clientId: 'c',
      clientType: 'registered',
      userId: 'u',
      scope: 'mcp',
      resources: [],
      createdAt: 0,
      expiresAt: 10_000,
    });
    const marks = new Set<string | undefined>();
    const winners = await race(createPostgresOAuthStorage, async (store, i) => {
      const outcome = await store.refreshTokens.rotate('t', {
        tokenHash: 'shared',
        clientId: 'c',
        now: 100 + i,
        successorHash: `next-${i}`,
        successorExpiresAt: 10_000,
        sealedSuccessor: `r1.${i}`,
      });
      if (!outcome.ok && outcome.reason === 'refused') marks.add(outcome.current.sealedSuccessor);
      return outcome.ok;
    });
    expect(winners).toBe(1);
    const successors = await db.pool.query(
      "SELECT token_hash FROM keyhold_oauth_refresh_tokens WHERE tenant = 't' AND token_hash LIKE 'next-%'",
    );
    expect(successors.rows).toHaveLength(1);
    const winner = (successors.rows[0] as { token_hash: string }).token_hash.slice('next-'.length);
    // Every loser saw the winner's sealed successor, never an unmarked row.
    expect([...marks]).toEqual([`r1.${winner}`]);
  });

  it('50 compare-and-swaps of one grant version split across both: exactly one wins', async () => {
    const vault = await createPostgresTokenVaultStorage(db.pool);
    const grant = {
      tenantId: 't',
      userId: 'u',
      toolModuleId: 'p',
      provider: 'github',
      scopes: ['repo'],
      status: 'valid' as const,
      accessTokenEncrypted: 'v1.a',
      createdAt: 0,
      updatedAt: 0,
    };
    const stored = await vault.grants.put(grant);
    const winners = await race(createPostgresTokenVaultStorage, async (store, i) => {
      const next = await store.grants.compareAndSwap(
        { ...grant, accessTokenEncrypted: `v1.${i}` },
        stored.version,
      );
      return next !== undefined;
    });
    expect(winners).toBe(1);
  });

  it('50 refresh-lease acquisitions split across both: exactly one holder', async () => {
    const winners = await race(createPostgresTokenVaultStorage, async (store) => {
      return (await store.refreshLock.acquire('grant:shared', 0, 30_000)) !== undefined;
    });
    expect(winners).toBe(1);
  });

  it('50 inserts of one claim code and 50 first logins of one identity: exactly one of each', async () => {
    expect(
      await race(createPostgresClaimStore, (store, i) =>
        store.insert({ code: 'SHARED', scopeDir: `/d/${i}`, createdAt: 0, expiresAt: 1 }),
      ),
    ).toBe(1);
    expect(
      await race(createPostgresUserStore, async (store) => {
        return (await store.findOrCreateUser({ issuer: 'https://idp.example', subject: 's' }, { now: 0 }))
          .created;
      }),
    ).toBe(1);
  });

  it('prepared statements keep working after another instance adds a column (rolling upgrade)', async () => {
    const claims = await createPostgresClaimStore(second);
    await claims.insert({ code: 'BEFORE', scopeDir: '/', createdAt: 0, expiresAt: 1 });
    // Use the prepared statements on every pooled connection of this instance.
    await Promise.all(Array.from({ length: 10 }, () => claims.get('BEFORE')));
    await db.pool.query('ALTER TABLE keyhold_claims ADD COLUMN added_by_newer_code TEXT');
    expect(await claims.get('BEFORE')).toMatchObject({ code: 'BEFORE' });
    expect((await claims.list()).map((r) => r.code)).toContain('BEFORE');
  });
});
