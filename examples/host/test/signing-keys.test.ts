import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHost } from './host-process.js';

let dataDir: string | undefined;
afterEach(() => {
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  dataDir = undefined;
});

describe('a broken signing key stops the host at start-up', () => {
  it('refuses to start, naming the tenant and the key, when signing-keys.json holds a public key', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'keyhold-host-'));
    // A public P-256 key where the private one belongs: before, the host started and answered the
    // tenant's first request with 500.
    const publicOnly = {
      kty: 'EC',
      crv: 'P-256',
      x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
      y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
    };
    writeFileSync(
      join(dataDir, 'signing-keys.json'),
      JSON.stringify({ demo: [{ kid: 'demo-1', alg: 'ES256', privateKey: publicOnly, active: true }] }),
    );
    const starting = startHost({}, dataDir);
    // Should it start after all, stop it so the failed test leaves no process behind.
    starting.then(
      (host) => host.stop(),
      () => {},
    );
    await expect(starting).rejects.toThrow(
      /tenant demo: signing key demo-1: the JWK is a public key: a private key needs its "d" member/,
    );
  });
});
