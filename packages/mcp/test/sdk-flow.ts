// What the end-to-end tests with the MCP SDK clients share: an in-memory OAuth client provider (and one
// holding a DPoP session), the user's browser approving consent, the whole flow up to a DPoP-bound token,
// and a real HTTP server for an app that is built once its URL is known.
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { Area } from '@keyhold/core';
import {
  type AuthorizationServer,
  type AuthorizationServerOptions,
  createAuthorizationServer,
  createStaticTenants,
  type OAuthStorage,
  type SigningKeyConfig,
} from '@keyhold/oauth-core';
import {
  Client,
  DpopSession,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { expect } from 'vitest';

/** An OAuth client provider (the shape both SDK eras take) that keeps everything in memory. */
export class MemoryProvider {
  information: unknown;
  saved: { access_token: string; token_type?: string } | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  constructor(
    readonly redirectUrl: string,
    private readonly clientName: string,
  ) {}
  get clientMetadata(): Readonly<Record<string, string | readonly string[]>> {
    return {
      client_name: this.clientName,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation(): never {
    return this.information as never;
  }
  saveClientInformation(information: unknown): void {
    this.information = information;
  }
  tokens(): never {
    return this.saved as never;
  }
  saveTokens(tokens: { access_token: string; token_type?: string }): void {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }
}

/** An OAuth client provider of the SDK v2 that holds one DPoP session for its registration. */
export class DpopProvider extends MemoryProvider {
  readonly session: Promise<DpopSession> = DpopSession.create({ alg: 'ES256' });
  constructor(redirectUrl = 'http://127.0.0.1:40124/callback') {
    super(redirectUrl, 'DPoP SDK Client');
  }
  dpop(): Promise<DpopSession> {
    return this.session;
  }
}

/**
 * The authorization server of one instance of a single-user app at `base` (tenant `demo`, user `owner`);
 * instances of one deployment share `storage` (and its spend-once store) and `keys`.
 */
export function demoAuthorizationServer(
  base: string,
  storage: OAuthStorage,
  keys: SigningKeyConfig[],
  dpop: AuthorizationServerOptions['dpop'],
): AuthorizationServer {
  return createAuthorizationServer({
    baseUrl: base,
    tenants: createStaticTenants({ demo: { signingKeys: keys, singleUserId: 'owner' } }),
    storage,
    singleUserMode: true,
    ...(dpop === undefined ? {} : { dpop }),
  });
}

/**
 * Runs the whole flow with the SDK v2 client and `provider`'s DPoP session against the MCP server at `url`:
 * the first connect is refused, the user approves, the code is exchanged. Asserts the token is DPoP-bound
 * (`token_type` DPoP, `cnf.jkt` the session key's thumbprint) and returns it.
 */
export async function authorizeWithDpop(provider: DpopProvider, url: URL): Promise<string> {
  const first = new StreamableHTTPClientTransport(url, { authProvider: provider as never });
  await expect(new Client({ name: 'v2', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(
    UnauthorizedError,
  );
  const redirect = await approveInBrowser(provider.authorizationUrl as URL);
  await first.finishAuth(redirect.searchParams);
  expect(provider.saved?.token_type).toMatch(/^dpop$/i);
  const token = String(provider.saved?.access_token);
  const payload = JSON.parse(Buffer.from(String(token.split('.')[1]), 'base64url').toString('utf8')) as {
    cnf?: { jkt?: string };
  };
  expect(payload.cnf?.jkt).toBe((await provider.session).thumbprint);
  return token;
}

/** A 2025-11-25 `tools/call` of `echo` at `url` with `authorization` and, if given, a DPoP proof. */
export function toolsCallRequest(url: string, authorization: string, dpop?: string): Request {
  return new Request(url, {
    method: 'POST',
    headers: {
      host: new URL(url).host,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      authorization,
      ...(dpop === undefined ? {} : { dpop }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'x' } },
    }),
  });
}

/** Plays the user's browser: follows the authorization URL, approves consent, returns the redirect. */
export async function approveInBrowser(authorizationUrl: URL): Promise<URL> {
  const first = await fetch(authorizationUrl, { redirect: 'manual' });
  let target = new URL(String(first.headers.get('location')), authorizationUrl);
  if (target.pathname.endsWith('/consent')) {
    const page = await fetch(target);
    const cookie = (page.headers.get('set-cookie') ?? '').split(';', 1)[0] ?? '';
    const csrfToken = /name="csrf_token" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
    const decided = await fetch(new URL(target.pathname, target), {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        req: String(target.searchParams.get('req')),
        decision: 'approve',
        csrf_token: csrfToken,
      }).toString(),
    });
    target = new URL(String(decided.headers.get('location')));
  }
  return target;
}

/** A listening HTTP server whose app is set once its base URL is known (503 until then). */
export interface AppServer {
  /** `http://127.0.0.1:<port>`. */
  readonly base: string;
  /**
   * Serves `app`; a path in `routes` goes to its Node listener instead (a host's own route, such as an
   * SDK v1 server at `/mcp`).
   */
  serve(app: Area, routes?: Readonly<Record<string, RequestListener>>): void;
  close(): Promise<void>;
}

/** Starts an {@link AppServer} on a free port of 127.0.0.1. */
export async function startAppServer(): Promise<AppServer> {
  let app: Area | undefined;
  let routes: Readonly<Record<string, RequestListener>> = {};
  const toApp = getRequestListener((request) => app?.fetch(request) ?? new Response(null, { status: 503 }));
  const server: Server = createServer((req, res) => {
    const route = routes[new URL(req.url ?? '/', 'http://localhost').pathname];
    return (route ?? toApp)(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    serve(next, nextRoutes = {}) {
      app = next;
      routes = nextRoutes;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
