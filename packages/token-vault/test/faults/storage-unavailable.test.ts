import type { Logger, RequestOutcome } from '@keyhold/core';
import { StorageUnavailableError } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import type { TokenVaultStorage } from '../../src/index.js';
import { createMemoryBrokerStorage } from '../../src/index.js';
import {
  ACME_TOKEN,
  ACME_ASK as ask,
  elicitationOf,
  getRequest,
  loginInBrowser,
  makeHarness,
  mockTokenEndpoint,
  tokenResponse,
} from '../fixtures.js';
import { useProviderServer } from '../provider-server.js';

const server = useProviderServer();

/** The memory storage, with a switch that makes every call throw the outage a real store throws. */
function switchableStorage(): { storage: TokenVaultStorage; down(on: boolean): void } {
  const inner = createMemoryBrokerStorage();
  let isDown = false;
  const wrap = <T extends object>(store: T): T =>
    new Proxy(store, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          if (isDown) throw new StorageUnavailableError('postgres', { retryAfterSeconds: 5 });
          return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        };
      },
    });
  return {
    storage: {
      grants: wrap(inner.grants),
      pending: wrap(inner.pending),
      refreshLock: wrap(inner.refreshLock),
    },
    down(on) {
      isDown = on;
    },
  };
}

function recordingLogger(): { logger: Logger; warnings: Record<string, unknown>[] } {
  const warnings: Record<string, unknown>[] = [];
  const ignore = () => {};
  return {
    logger: { debug: ignore, info: ignore, warn: (fields) => warnings.push(fields), error: ignore },
    warnings,
  };
}

describe('outage: the connect step answers a 503 page with Retry-After', () => {
  it('storage down when the link is opened: 503 page, Retry-After, no-store, one warn line, tracing 503', async () => {
    const { storage, down } = switchableStorage();
    const { logger, warnings } = recordingLogger();
    const outcomes: RequestOutcome[] = [];
    const h = makeHarness(
      { logger, tracing: { start: () => (outcome) => outcomes.push(outcome) } },
      { storage },
    );
    const error = await elicitationOf(h.broker.requestToken(ask, h.context));
    down(true);
    const result = await h.broker.connect(getRequest(error.elicitationUrl, 'user-1'));
    expect(result.status).toBe(503);
    expect(result.headers['retry-after']).toBe('5');
    expect(result.headers['cache-control']).toBe('no-store');
    expect(result.headers['content-type']).toMatch(/^text\/html/);
    expect(result.body).toContain('temporarily unavailable');
    expect(warnings).toEqual([
      expect.objectContaining({ event: 'storage_unavailable', component: 'postgres', endpoint: 'connect' }),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([503]);
    // Once storage is back, the same link works.
    down(false);
    expect((await h.broker.connect(getRequest(error.elicitationUrl, 'user-1'))).status).toBe(302);
  });
});

describe('outage: the callback answers a 503 page with Retry-After', () => {
  it('storage down when the provider redirects back: 503 page, not a rejection', async () => {
    const { storage, down } = switchableStorage();
    const h = makeHarness({}, { storage });
    const { callback } = await loginInBrowser(h);
    down(true);
    const result = await h.broker.callback(callback);
    expect(result.status).toBe(503);
    expect(result.headers['retry-after']).toBe('5');
  });

  it('through fetch: the same 503', async () => {
    const { storage, down } = switchableStorage();
    const h = makeHarness({}, { storage });
    const error = await elicitationOf(h.broker.requestToken(ask, h.context));
    down(true);
    const response = await h.broker.fetch(new Request(error.elicitationUrl), { userId: 'user-1' });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
  });
});

describe('outage: the broker behind tools lets the outage through, never an elicitation', () => {
  it('requestToken rejects with StorageUnavailableError (the MCP endpoint answers 503)', async () => {
    const { storage, down } = switchableStorage();
    const h = makeHarness({}, { storage });
    mockTokenEndpoint(server, ACME_TOKEN, () =>
      tokenResponse({ access_token: 'access-1', refresh_token: 'refresh-1', expires_in: 3600 }),
    );
    const { callback } = await loginInBrowser(h);
    expect((await h.broker.callback(callback)).status).toBe(200);
    down(true);
    await expect(h.broker.requestToken(ask, h.context)).rejects.toBeInstanceOf(StorageUnavailableError);
    down(false);
    expect(await h.broker.requestToken(ask, h.context)).toEqual({ ok: true, accessToken: 'access-1' });
  });
});
