import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLocalVault } from '@keyhold/token-vault';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAINTEXT } from '../../test-support/node-crypto-sealed-values.js';
import {
  freePort,
  keyholdFromSource,
  runtimeBinary,
  runtimesDir,
  workerdConfig,
} from './support/runtimes.js';

const outDir = join(runtimesDir, '.build', 'without-nodejs-compat');

describe('@keyhold/token-vault on workerd without nodejs_compat (issue 28)', () => {
  let child: ChildProcess | undefined;
  let origin = '';
  let printed = '';

  beforeAll(async () => {
    mkdirSync(outDir, { recursive: true });
    // No Node built-in is external: a static import of one fails the bundle, as it would fail the upload.
    await build({
      entryPoints: [join(runtimesDir, 'src', 'vault-worker.ts')],
      outfile: join(outDir, 'worker.mjs'),
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      target: 'es2022',
      mainFields: ['module', 'main'],
      conditions: ['workerd', 'worker', 'browser', 'import'],
      plugins: [keyholdFromSource],
      logLevel: 'silent',
    });
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    writeFileSync(join(outDir, 'workerd.capnp'), workerdConfig('worker.mjs', port));
    child = spawn(runtimeBinary('workerd'), ['serve', join(outDir, 'workerd.capnp')], {
      cwd: outDir,
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? outDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Uint8Array) => {
      printed += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Uint8Array) => {
      printed += chunk.toString();
    });
    const deadline = Date.now() + 20_000;
    for (;;) {
      try {
        await fetch(origin, { signal: AbortSignal.timeout(1_000), method: 'HEAD' });
        return;
      } catch {
        if (Date.now() > deadline || child.exitCode !== null) {
          throw new Error(`workerd did not listen within 20 s:\n${printed}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }, 60_000);

  afterAll(async () => {
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child?.once('exit', () => resolve());
      child?.kill('SIGTERM');
      setTimeout(() => child?.kill('SIGKILL'), 3_000).unref();
    });
  });

  it('opens local and KMS values node:crypto sealed, and seals a value Node opens', async () => {
    const answer = await fetch(origin);
    const text = await answer.text();
    expect(answer.status, `${text}\n${printed}`).toBe(200);
    const check = JSON.parse(text) as Record<string, string>;
    // The worker really has no Node: no `process`, so no getBuiltinModule, so WebCrypto and the portable scrypt.
    expect(check['nodeBuiltins']).toBe('undefined');
    expect(check['local']).toBe(PLAINTEXT);
    expect(check['kms']).toBe(PLAINTEXT);
    expect(check['roundTrip']).toBe('sealed without nodejs_compat');
    const onNode = createLocalVault({
      masterKey: 'a-master-key-of-at-least-32-bytes-long',
      masterKeyId: 'k1',
      scryptCost: 1024,
    });
    expect(
      await onNode.decrypt(check['sealed'] as string, {
        tenantId: 'tenant-a',
        userId: 'user-1',
        toolModuleId: 'module-1',
        provider: 'github',
      }),
    ).toBe('sealed without nodejs_compat');
  });
});
