// What the end-to-end tests with the MCP SDK clients share: an in-memory OAuth client provider, the user's
// browser approving consent, and a real HTTP server for an app that is built once its URL is known.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { Area } from '@keyhold/core';

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
  serve(app: Area): void;
  close(): Promise<void>;
}

/** Starts an {@link AppServer} on a free port of 127.0.0.1. */
export async function startAppServer(): Promise<AppServer> {
  let app: Area | undefined;
  const server: Server = createServer(
    getRequestListener((request) => app?.fetch(request) ?? new Response(null, { status: 503 })),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    serve(next) {
      app = next;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
