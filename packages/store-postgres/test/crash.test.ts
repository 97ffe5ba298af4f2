import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ensureBuiltPackage, writeBurstModuleUrl } from '@keyhold/store-sql-common/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { createPostgresClaimStore } from '../src/claim-store.js';
import { createPostgresOAuthStorage } from '../src/oauth-store.js';
import { POSTGRES_URL, requirePostgres, useIsolatedPool } from './postgres.js';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

const fixture = join(packageDir, 'test/fixtures/write-burst.mjs');

const available = await requirePostgres();

describe.skipIf(!available)('a SIGKILL of a host during a write burst (PostgreSQL)', () => {
  const db = useIsolatedPool();
  beforeAll(() => ensureBuiltPackage(packageDir), 120_000);

  it('loses no write the host saw committed, and leaves the store usable', async () => {
    const schema = ((await db.pool.query('SELECT current_schema() AS s')).rows[0] as { s: string }).s;
    const child = spawn(process.execPath, [fixture, writeBurstModuleUrl(), POSTGRES_URL, schema], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('exit', (_code, signal) => resolve(signal)),
    );
    const reported = { refresh: [] as string[], claims: [] as string[] };
    for await (const line of createInterface({ input: child.stdout })) {
      const [kind, id] = line.split(' ');
      if (kind === 'refresh' && id) reported.refresh.push(id);
      if (kind === 'claim' && id) reported.claims.push(id);
      if (reported.refresh.length + reported.claims.length >= 600 && !child.killed) child.kill('SIGKILL');
    }
    expect(await exited).toBe('SIGKILL');

    const oauth = await createPostgresOAuthStorage(db.pool);
    const claims = await createPostgresClaimStore(db.pool);
    for (const tokenHash of reported.refresh) {
      expect((await oauth.refreshTokens.get('crash', tokenHash))?.consumedAt, tokenHash).toBeDefined();
      expect(await oauth.refreshTokens.get('crash', `${tokenHash}-next`), tokenHash).toBeDefined();
    }
    for (const code of reported.claims) expect(await claims.get(code), code).toBeDefined();
    expect(await claims.insert({ code: 'AFTERX', scopeDir: '/tmp', createdAt: 1, expiresAt: 2 })).toBe(true);
    expect(await claims.get('AFTERX')).toMatchObject({ code: 'AFTERX' });
  });
});
