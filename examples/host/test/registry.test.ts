import { createRegistryClient } from '@keyhold/registry-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyhold } from './cli.js';
import { type HostProcess, startHost } from './host-process.js';

let host: HostProcess;
beforeAll(async () => {
  host = await startHost();
});
afterAll(async () => {
  await host?.stop({ removeData: true });
});

describe('the provider registry served by the host', () => {
  it('answers the registry client from the remote registry', async () => {
    const client = createRegistryClient({ registryUrl: host.url });
    const found = await client.getProvider('filesystem');
    expect(found).toMatchObject({ ok: true, source: 'remote' });
  });

  it('answers `keyhold providers get` (a real CLI process) without the local-registry note', async () => {
    const result = await keyhold(['providers', 'get', 'filesystem', '--json', '--registry-url', host.url]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ provider: { id: 'filesystem' } });
    expect(result.stderr).not.toContain('local registry');
  });

  it('`keyhold providers search` finds providers by name', async () => {
    const result = await keyhold(['providers', 'search', 'git', '--registry-url', host.url]);
    expect(result.code).toBe(0);
    expect(result.stdout.toLowerCase()).toContain('git');
  });
});
