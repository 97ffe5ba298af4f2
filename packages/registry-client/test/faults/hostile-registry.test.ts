import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostileAnswer, HostilePeer } from '../../../../test-support/hostile-peer.js';
import { startHostilePeer } from '../../../../test-support/hostile-peer.js';
import { createRegistryClient } from '../../src/client.js';
import { httpProvider, noteOf } from '../helpers/providers.js';

// A hostile registry on a real socket: the answer is read within maxResponseBytes and the read timeout
// (one deadline for the whole body, not per chunk), then the client falls back to the local file.

const READ_TIMEOUT_MS = 500;
const local = { linear: httpProvider('linear', { name: 'Linear (local)' }) };

let peer: HostilePeer;
beforeAll(async () => {
  peer = await startHostilePeer();
});
afterAll(() => peer.close());

const HOSTILE: readonly [string, HostileAnswer, string][] = [
  ['an endless answer', { kind: 'endless', prefix: '{"id":"' }, 'too_large'],
  [
    'a huge complete answer',
    { kind: 'huge', body: JSON.stringify({ id: 'A'.repeat(2_000_000) }) },
    'too_large',
  ],
  [
    'an answer trickled one byte per 100 ms',
    { kind: 'trickle', body: '{"id":"linear"}', intervalMs: 100 },
    'timeout',
  ],
];

describe('registry answers are read within a byte cap and the read timeout', () => {
  it.each(HOSTILE)(
    '%s: falls back to the local file within the limit, the socket closed',
    async (_, answer, reason) => {
      peer.route('*', answer);
      const client = createRegistryClient({
        registryUrl: peer.origin,
        localProviders: local,
        readTimeoutMs: READ_TIMEOUT_MS,
        maxResponseBytes: 100_000,
      });
      const started = Date.now();
      const found = await client.getProvider('linear');
      expect(Date.now() - started).toBeLessThan(READ_TIMEOUT_MS + 1000);
      expect(found).toMatchObject({ ok: true, source: 'local', reason, provider: local.linear });
      if (reason === 'too_large') expect(noteOf(found)).toContain('more than 100000 bytes');
      const last = await peer.lastAnswerClosed(2000);
      if (answer.kind !== 'huge') expect(last.finished).toBe(false);

      // A later client reads an honest registry on the same server.
      peer.route('*', {
        kind: 'plain',
        body: JSON.stringify(httpProvider('linear', { name: 'Linear (remote)' })),
      });
      const again = await createRegistryClient({
        registryUrl: peer.origin,
        localProviders: local,
      }).getProvider('linear');
      expect(again).toMatchObject({ ok: true, source: 'remote' });
    },
  );

  it('maxResponseBytes is validated', () => {
    expect(() => createRegistryClient({ maxResponseBytes: 0 })).toThrow(/maxResponseBytes/);
  });
});
