import { describe, expect, it } from 'vitest';
import { NodeAdapterError } from '../src/errors.js';
import { guardHosts } from '../src/host-guard.js';
import { serve } from '../src/serve.js';

function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

function expectInvalidOptions(error: unknown, optionName: string): void {
  expect(error).toBeInstanceOf(NodeAdapterError);
  expect(error).toMatchObject({ code: 'ERR_INVALID_OPTIONS' });
  expect((error as Error).message).toContain(optionName);
}

describe('guardHosts checks its options when it is created', () => {
  it('an allowedHosts entry that is no host throws NodeAdapterError ERR_INVALID_OPTIONS', () => {
    expectInvalidOptions(
      thrownBy(() => guardHosts(() => {}, { allowedHosts: ['bad host'] })),
      'allowedHosts',
    );
  });
  it('a selfGuardedPaths entry that is no path throws NodeAdapterError ERR_INVALID_OPTIONS', () => {
    expectInvalidOptions(
      thrownBy(() => guardHosts(() => {}, { allowedHosts: ['app.example'], selfGuardedPaths: ['mcp'] })),
      'selfGuardedPaths',
    );
  });
});

describe('serve checks its options before binding', () => {
  it.each([
    ['port', { port: 70_000 }],
    ['port', { port: -1 }],
    ['shutdownTimeoutMs', { shutdownTimeoutMs: 0 }],
    ['headersTimeoutMs', { headersTimeoutMs: 0 }],
    ['requestTimeoutMs', { requestTimeoutMs: 2.5 }],
    ['connectionsCheckingIntervalMs', { connectionsCheckingIntervalMs: -1 }],
    ['hostname', { hostname: '' }],
    ['allowedHosts', { hostname: '0.0.0.0' }],
    ['allowedHosts', { allowedHosts: ['user@app.example'] }],
  ])('a bad %s throws NodeAdapterError ERR_INVALID_OPTIONS', async (name, options) => {
    const error = await serve(() => {}, options).catch((e: unknown) => e);
    expectInvalidOptions(error, name);
  });
});
