// Memory per live refresh token in the memory store: 100,000 tokens saved the way the token endpoint saves
// them (the same fields and sizes), heap measured after forced collections. Run with --expose-gc; prints a
// short markdown table on stdout.
import { randomToken, sha256Base64url } from '@keyhold/internal';
import { createMemoryStorage } from '@keyhold/oauth-core';

const COUNT = Number(process.env['BENCH_MEMORY_TOKENS'] ?? '100000');
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error('memory.js needs --expose-gc');
  process.exit(1);
}

function settled(): NodeJS.MemoryUsage {
  for (let i = 0; i < 4; i++) gc!();
  return process.memoryUsage();
}

const storage = createMemoryStorage();
const now = Date.now();
const before = settled();
let lastHash = '';
for (let i = 0; i < COUNT; i++) {
  lastHash = sha256Base64url(randomToken());
  await storage.refreshTokens.save('demo', {
    // What issueTokens stores: the SHA-256 of a 32-byte token, a 16-byte family id, the client and user.
    tokenHash: lastHash,
    familyId: randomToken(16),
    clientId: 'c_0123456789abcdef',
    clientType: 'registered',
    userId: `user-${i % 1000}`,
    scope: 'openid mcp:tools offline_access',
    resources: [],
    createdAt: now,
    expiresAt: now + 2_592_000_000,
  });
}
const after = settled();
// Read one back after measuring, so the store is still reachable (and counted) when the heap is measured.
if ((await storage.refreshTokens.get('demo', lastHash)) === undefined) throw new Error('token lost');
const heap = after.heapUsed - before.heapUsed;
const rss = after.rss - before.rss;
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
console.log(
  [
    `| live refresh tokens | heap growth | per token | RSS growth |`,
    `|---|---|---|---|`,
    `| ${COUNT.toLocaleString('en-US')} | ${mib(heap)} | ${Math.round(heap / COUNT)} B | ${mib(rss)} |`,
  ].join('\n'),
);
