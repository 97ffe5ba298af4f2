import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
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

describe('loadSecrets with a database (HostState): stored once, the first value wins', () => {
  /** A HostState in memory that, like the database, keeps the first value stored under a name. */
  function memoryState(initial: Record<string, string> = {}) {
    const values = new Map(Object.entries(initial));
    return {
      values,
      get: async (name: string) => values.get(name),
      putIfAbsent: async (name: string, value: string) => {
        if (!values.has(name)) values.set(name, value);
        return values.get(name)!;
      },
    };
  }

  it('uses the values another instance stored first and writes no file', async () => {
    const dir = temp();
    const state = memoryState({ 'secret:mcpStateSecret': 'stored-by-another-instance' });
    const secrets = await loadSecrets(dir, {}, state);
    expect(secrets.mcpStateSecret).toBe('stored-by-another-instance');
    expect(await loadSecrets(temp(), {}, state)).toEqual(secrets);
    expect(existsSync(join(dir, 'secrets.json'))).toBe(false);
  });

  it('seeds the database from a secrets.json left by a single-machine start, so the vault stays readable', async () => {
    const dir = temp();
    const before = await loadSecrets(dir, {});
    const state = memoryState();
    expect(await loadSecrets(dir, {}, state)).toEqual(before);
    expect(state.values.get('secret:vaultMasterKey')).toBe(before.vaultMasterKey);
  });

  it('never stores a value given by environment variable', async () => {
    const state = memoryState();
    const secrets = await loadSecrets(
      temp(),
      { KEYHOLD_PROVIDER_CLIENT_SECRET: 'from-the-secret-manager' },
      state,
    );
    expect(secrets.providerClientSecret).toBe('from-the-secret-manager');
    expect([...state.values.values()]).not.toContain('from-the-secret-manager');
    expect(state.values.has('secret:providerClientSecret')).toBe(false);
  });
});
