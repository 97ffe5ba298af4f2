import type { SetupServer } from 'msw/node';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';

/**
 * The mocked providers' network for the calling test file: a request no handler answers fails the test (the
 * broker must never reach a real provider), and each test starts with no handler left by the one before.
 * Call it at the top level of the file, where vitest collects the hooks.
 *
 * @example
 * ```ts
 * const server = useProviderServer();
 * it('exchanges the code', async () => {
 *   server.use(mockTokenEndpoint(ACME_TOKEN, tokenResponse()));
 * });
 * ```
 */
export function useProviderServer(): SetupServer {
  const server = setupServer();
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());
  return server;
}
