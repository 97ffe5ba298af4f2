import { afterAll, beforeAll } from 'vitest';
import { type HostProcess, startHost } from './host-process.js';
import { authorizeMcpClient, TestOAuthProvider } from './oauth-client.js';

/** The host of a test file and the MCP client it authorized once, whose tokens every test reuses. */
export interface AuthorizedHost {
  /** The running host; read it inside tests or hooks (it starts in the file's `beforeAll`). */
  readonly host: HostProcess;
  /** The OAuth client provider holding the tokens of the one authorization. */
  readonly provider: TestOAuthProvider;
}

/**
 * Starts a host for the calling test file and authorizes one MCP client against its `demo` tenant (one
 * OAuth dance for the whole file), then stops the host and removes its data after the file. Call it at the
 * top level of the file, where vitest collects the hooks.
 *
 * @example
 * ```ts
 * const hosted = useAuthorizedHost();
 * it('lists tools', async () => {
 *   const transport = new StreamableHTTPClientTransport(new URL(`${hosted.host.url}/tenant/demo/mcp`), {
 *     authProvider: hosted.provider,
 *   });
 * });
 * ```
 */
export function useAuthorizedHost(): AuthorizedHost {
  const provider = new TestOAuthProvider('http://127.0.0.1:1/callback');
  let started: HostProcess | undefined;
  beforeAll(async () => {
    started = await startHost();
    await authorizeMcpClient(new URL(`${started.url}/tenant/demo/mcp`), provider);
  });
  afterAll(async () => {
    await started?.stop({ removeData: true });
  });
  return {
    provider,
    get host() {
      if (started === undefined) throw new Error('the host starts in beforeAll: read it inside a test');
      return started;
    },
  };
}
