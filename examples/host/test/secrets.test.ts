import { mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSecrets } from '../src/secrets.js';

const dirs: string[] = [];
const temp = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'keyhold-secrets-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('loadSecrets: generated once, kept 0600, environment values never written to disk', () => {
  it('generates the secrets on first start and returns the same ones on the next', async () => {
    const dir = temp();
    const first = await loadSecrets(dir, {});
    expect(statSync(join(dir, 'secrets.json')).mode & 0o777).toBe(0o600);
    expect(await loadSecrets(dir, {})).toEqual(first);
    expect(Buffer.from(first.vaultMasterKey, 'base64')).toHaveLength(32);
  });

  it('uses a secret given by environment variable and does not persist it', async () => {
    const dir = temp();
    const secrets = await loadSecrets(dir, { KEYHOLD_VAULT_MASTER_KEY: 'from-the-secret-manager' });
    expect(secrets.vaultMasterKey).toBe('from-the-secret-manager');
    expect(readFileSync(join(dir, 'secrets.json'), 'utf8')).not.toContain('from-the-secret-manager');
  });

  it('does not rewrite the file when nothing new was generated', async () => {
    const dir = temp();
    await loadSecrets(dir, {});
    const path = join(dir, 'secrets.json');
    const past = new Date('2020-01-01T00:00:00Z');
    utimesSync(path, past, past);
    await loadSecrets(dir, {});
    expect(statSync(path).mtime.getTime()).toBe(past.getTime());
  });

  it('drops the state secret older versions kept and keeps every other stored value', async () => {
    const dir = temp();
    const first = await loadSecrets(dir, {});
    const path = join(dir, 'secrets.json');
    const stored = JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>;
    writeFileSync(path, JSON.stringify({ ...stored, stateSecret: 'left-by-an-older-version' }), {
      mode: 0o600,
    });
    expect(await loadSecrets(dir, {})).toEqual(first);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(stored);
  });
});
