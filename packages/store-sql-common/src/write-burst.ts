import type { ClaimStore } from '@keyhold/claim-codes';
import type { OAuthStorage } from '@keyhold/oauth-core';

/** What {@link runWriteBurst} writes to, and how many writers run at once. */
export interface WriteBurstOptions {
  readonly oauth: OAuthStorage;
  readonly claims: ClaimStore;
  /** Concurrent writers (one on SQLite's single writer; several on a PostgreSQL pool). */
  readonly writers: number;
}

/**
 * The body of a crash test's child process: writes until killed, a refresh token saved and rotated (a
 * multi-statement transaction) and a claim per round, and prints `refresh <hash>` / `claim <code>` to stdout
 * once each call has returned, that is, once its commit was acknowledged. The test SIGKILLs the process
 * mid-burst and checks every printed write survived.
 *
 * @example
 * ```ts
 * await runWriteBurst({ oauth: createSqliteOAuthStorage(db), claims: createSqliteClaimStore(db), writers: 1 });
 * ```
 */
export async function runWriteBurst(options: WriteBurstOptions): Promise<never> {
  const { oauth, claims } = options;
  const now = Date.now();
  const out = (line: string): void => {
    process.stdout.write(`${line}\n`);
  };
  out('ready');
  await Promise.all(
    Array.from({ length: options.writers }, async (_, writer) => {
      for (let i = 0; ; i++) {
        const tokenHash = `rt-${writer}-${i}`;
        await oauth.refreshTokens.save('crash', {
          tokenHash,
          familyId: `family-${writer}-${i % 7}`,
          clientId: 'client',
          clientType: 'registered',
          userId: 'user',
          scope: 'openid',
          resources: [],
          createdAt: now,
          expiresAt: now + 86_400_000,
        });
        await oauth.refreshTokens.rotate('crash', {
          tokenHash,
          clientId: 'client',
          now: now + i,
          successorHash: `${tokenHash}-next`,
          successorExpiresAt: now + 86_400_000,
        });
        out(`refresh ${tokenHash}`);
        const code = `C${writer}${String(i).padStart(5, '0')}`;
        await claims.insert({ code, scopeDir: '/tmp', createdAt: now, expiresAt: now + 86_400_000 });
        out(`claim ${code}`);
      }
    }),
  );
  throw new Error('unreachable: a write burst runs until the process is killed');
}
