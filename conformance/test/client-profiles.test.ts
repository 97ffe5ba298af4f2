import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeRequestUrl } from '../../test-support/code-request-url.js';
import { listToolsWithBearer } from '../../test-support/mcp-tools-list.js';
import { approveInBrowser, type HostProcess, packageDir, registerClient, startHost } from './host.js';

/** A client profile as `fixtures/clients/<name>.json` records it (sources and notes are for readers). */
interface ClientProfile {
  readonly profile: string;
  readonly registration: 'cimd' | 'dcr';
  readonly sources: readonly string[];
  /** CIMD only: the metadata document URL, which is the client_id. */
  readonly clientId?: string;
  /** The redirect URI the client sends on /authorize. */
  readonly redirectUri: string;
  /** The metadata document (CIMD) or the registration request body (DCR). */
  readonly metadata: Record<string, unknown> & { redirect_uris: string[]; jwks_uri?: string };
}

function loadProfile(name: string): ClientProfile {
  return JSON.parse(
    readFileSync(join(packageDir, 'fixtures/clients', `${name}.json`), 'utf8'),
  ) as ClientProfile;
}

interface TokenResponse {
  access_token: string;
  refresh_token: string;
  token_type: string;
  scope?: string;
}

/** How the client authenticates at the token endpoint: `client_id` alone, or a signed assertion. */
type Authenticate = (form: Record<string, string>) => Promise<Record<string, string>>;

/**
 * The origin of a document URL (`https://claude.ai`), and a local server answering for it through the
 * host's development rewrite (`KEYHOLD_CIMD_DEV_REWRITE`), with the allowlist naming its host.
 */
async function serveDocuments(
  documents: Map<string, unknown>,
): Promise<{ server: Server; url: string; requested: string[] }> {
  const requested: string[] = [];
  const server = createServer((request, response) => {
    requested.push(request.url ?? '');
    const document = documents.get(request.url ?? '');
    if (document === undefined) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' });
    response.end(JSON.stringify(document));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requested };
}

/** The MCP call a connected client makes first: `tools/list` with the bearer token, answered 200. */
async function listTools(mcpUrl: string, accessToken: string): Promise<string[]> {
  const response = await listToolsWithBearer(mcpUrl, accessToken);
  const text = await response.text();
  expect(response.status, text).toBe(200);
  // JSON or a one-event SSE stream, depending on the client's Accept; both carry the JSON-RPC result.
  const body = text.startsWith('{') ? text : (/^data: (.+)$/m.exec(text)?.[1] ?? '');
  const message = JSON.parse(body) as { result?: { tools: { name: string }[] } };
  expect(message.result, text).toBeDefined();
  return message.result!.tools.map((tool) => tool.name);
}

/**
 * Drives one profile through what the real client does: the 401 challenge at the MCP endpoint, protected
 * resource and authorization server discovery, its client id (metadata document URL, or DCR), authorize with
 * PKCE S256 + `resource` + `state`, consent approved by the person, the redirect back to its own redirect URI
 * (with `iss`), the code exchange, `tools/list`, and two refreshes of the same refresh token inside the reuse
 * window (a retry after a lost response), then the successor's own rotation.
 */
async function driveProfile(
  host: HostProcess,
  profile: ClientProfile,
  authenticate: Authenticate,
): Promise<{ clientId: string; tokenAuthMethods: unknown }> {
  // 1. The MCP endpoint challenges; the client follows resource_metadata to the authorization server.
  const challenge = await fetch(host.mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  expect(challenge.status).toBe(401);
  const resourceMetadataUrl = /resource_metadata="([^"]+)"/.exec(
    challenge.headers.get('www-authenticate') ?? '',
  )?.[1];
  expect(resourceMetadataUrl).toBeDefined();
  const resourceMetadata = (await (await fetch(resourceMetadataUrl!)).json()) as {
    resource: string;
    authorization_servers: string[];
    scopes_supported: string[];
  };
  expect(resourceMetadata.resource).toBe(host.mcpUrl);
  const issuer = resourceMetadata.authorization_servers[0]!;
  const asUrl = new URL(issuer);
  const metadata = (await (
    await fetch(`${asUrl.origin}/.well-known/oauth-authorization-server${asUrl.pathname}`)
  ).json()) as Record<string, unknown> & { authorization_endpoint: string; token_endpoint: string };
  expect(metadata.issuer).toBe(issuer);

  // 2. Its client id: the document URL (CIMD) or a dynamic registration.
  let clientId: string;
  if (profile.registration === 'cimd') {
    expect(metadata.client_id_metadata_document_supported).toBe(true);
    clientId = profile.clientId!;
  } else {
    const registered = await registerClient(host, profile.metadata);
    expect(registered.client_secret).toBeUndefined();
    clientId = registered.client_id;
  }

  // 3. Authorization request, consent, and the redirect back to the client's own URI.
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(16).toString('base64url');
  const authorizationUrl = codeRequestUrl(metadata.authorization_endpoint, clientId, profile.redirectUri, {
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    state,
    scope: resourceMetadata.scopes_supported.join(' '),
    resource: resourceMetadata.resource,
  });
  const callback = await approveInBrowser(authorizationUrl);
  expect(`${callback.protocol}//${callback.host}${callback.pathname}`).toBe(
    profile.redirectUri.replace(/\?.*$/, ''),
  );
  expect(callback.searchParams.get('state')).toBe(state);
  expect(callback.searchParams.get('iss')).toBe(issuer);
  const code = callback.searchParams.get('code');
  // A code is an opaque random value of at least 128 bits, base64url.
  expect(code, callback.href).toMatch(/^[A-Za-z0-9_-]{22,}$/);

  // 4. The code exchange, then the MCP call with the access token.
  const token = async (form: Record<string, string>): Promise<Response> =>
    fetch(metadata.token_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(await authenticate({ ...form, client_id: clientId })).toString(),
    });
  const exchanged = await token({
    grant_type: 'authorization_code',
    code: code!,
    redirect_uri: profile.redirectUri,
    code_verifier: verifier,
    resource: resourceMetadata.resource,
  });
  expect(exchanged.status, await exchanged.clone().text()).toBe(200);
  const first = (await exchanged.json()) as TokenResponse;
  expect(first.token_type.toLowerCase()).toBe('bearer');
  expect(first.refresh_token).toEqual(expect.any(String));
  expect(await listTools(host.mcpUrl, first.access_token)).not.toEqual([]);

  // 5. Two refreshes of the same token inside the reuse window: both succeed with the same successor.
  const refresh = async (refreshToken: string): Promise<Response> =>
    token({ grant_type: 'refresh_token', refresh_token: refreshToken });
  const once = await refresh(first.refresh_token);
  expect(once.status, await once.clone().text()).toBe(200);
  const twice = await refresh(first.refresh_token);
  expect(twice.status, await twice.clone().text()).toBe(200);
  const [a, b] = [(await once.json()) as TokenResponse, (await twice.json()) as TokenResponse];
  expect(a.refresh_token).not.toBe(first.refresh_token);
  expect(b.refresh_token).toBe(a.refresh_token);
  expect(await listTools(host.mcpUrl, a.access_token)).not.toEqual([]);
  expect(await listTools(host.mcpUrl, b.access_token)).not.toEqual([]);

  // 6. The successor rotates normally; once it is used, the old token is a replay again.
  const next = await refresh(a.refresh_token);
  expect(next.status, await next.clone().text()).toBe(200);
  expect(((await next.json()) as TokenResponse).refresh_token).not.toBe(a.refresh_token);
  const replay = await refresh(first.refresh_token);
  expect(replay.status).toBe(400);
  expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });
  return { clientId, tokenAuthMethods: metadata.token_endpoint_auth_methods_supported };
}

/** A public client: `client_id` alone (already in the form). */
const publicClient: Authenticate = async (form) => form;

describe('client profiles, driven through the whole flow against the example host', () => {
  describe('Claude: metadata document client, `none`, https callback on claude.ai', () => {
    const profile = loadProfile('claude');
    let documents: Awaited<ReturnType<typeof serveDocuments>>;
    let host: HostProcess;
    beforeAll(async () => {
      const documentUrl = new URL(profile.clientId!);
      documents = await serveDocuments(new Map([[documentUrl.pathname, profile.metadata]]));
      host = await startHost({
        KEYHOLD_CIMD_DOMAINS: documentUrl.host,
        KEYHOLD_CIMD_DEV_REWRITE: `${documentUrl.origin}=${documents.url}`,
        KEYHOLD_CONFIDENTIAL_TENANT: 'confidential',
      });
    });
    afterAll(async () => {
      await host?.stop();
      await new Promise((resolve) => documents?.server.close(resolve));
    });

    it('is refused (invalid_client) by a tenant that does not accept `none`', async () => {
      const authorize = codeRequestUrl(
        `${host.url}/tenant/confidential/authorize`,
        profile.clientId!,
        profile.redirectUri,
      );
      const response = await fetch(authorize, { redirect: 'manual' });
      expect(response.status).toBe(400);
      const page = await response.text();
      expect(page).toContain('invalid_client');
      expect(page).toContain('names no authentication method');
    });

    it('authorizes, consents, exchanges, calls tools/list, and refreshes twice inside the window', async () => {
      const { clientId } = await driveProfile(host, profile, publicClient);
      expect(clientId).toBe('https://claude.ai/oauth/mcp-oauth-client-metadata');
      // The host fetched the document, and nothing else from the client's site.
      expect(new Set(documents.requested)).toEqual(new Set([new URL(clientId).pathname]));
    });
  });

  describe('ChatGPT: metadata document client negotiating private_key_jwt (RS256, jwks_uri)', () => {
    const profile = loadProfile('chatgpt');
    let documents: Awaited<ReturnType<typeof serveDocuments>>;
    let host: HostProcess;
    let privateKey: CryptoKey;
    let assertions = 0;
    const jtis = new Set<string>();
    beforeAll(async () => {
      const keys = await generateKeyPair('RS256', { extractable: true });
      privateKey = keys.privateKey;
      const jwk: JWK = {
        ...(await exportJWK(keys.publicKey)),
        kid: 'chatgpt-profile-1',
        alg: 'RS256',
        use: 'sig',
      };
      const documentUrl = new URL(profile.clientId!);
      documents = await serveDocuments(
        new Map<string, unknown>([
          [documentUrl.pathname, profile.metadata],
          [new URL(profile.metadata.jwks_uri!).pathname, { keys: [jwk] }],
        ]),
      );
      host = await startHost({
        KEYHOLD_CIMD_DOMAINS: documentUrl.host,
        KEYHOLD_CIMD_DEV_REWRITE: `${documentUrl.origin}=${documents.url}`,
      });
    });
    afterAll(async () => {
      await host?.stop();
      await new Promise((resolve) => documents?.server.close(resolve));
    });

    /** RFC 7523 §2.2: a fresh RS256 assertion per token request (iss = sub = client_id, aud = the issuer identifier, draft-ietf-oauth-rfc7523bis). */
    const signedAssertion: Authenticate = async (form) => {
      const jti = randomUUID();
      jtis.add(jti);
      assertions++;
      const assertion = await new SignJWT({})
        .setProtectedHeader({ alg: 'RS256', kid: 'chatgpt-profile-1', typ: 'JWT' })
        .setIssuer(profile.clientId!)
        .setSubject(profile.clientId!)
        .setAudience(host.issuer)
        .setJti(jti)
        .setIssuedAt()
        .setExpirationTime('60s')
        .sign(privateKey);
      return {
        ...form,
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: assertion,
      };
    };

    it('sees private_key_jwt advertised, so the document negotiates it (not `none`)', async () => {
      const metadata = (await (
        await fetch(`${host.url}/.well-known/oauth-authorization-server/tenant/demo`)
      ).json()) as Record<string, unknown>;
      expect(metadata.token_endpoint_auth_methods_supported).toContain('private_key_jwt');
      expect(metadata.token_endpoint_auth_signing_alg_values_supported).toContain('RS256');
    });

    it('authorizes, exchanges and refreshes twice with a signed client assertion on every token request', async () => {
      await driveProfile(host, profile, signedAssertion);
      // Exchange, two refreshes in the window, the successor's rotation and the refused replay.
      expect(assertions).toBe(5);
      expect(jtis.size).toBe(5);
      // The host read the document and then the key set behind its jwks_uri to verify the assertions.
      expect(documents.requested).toContain(new URL(profile.metadata.jwks_uri!).pathname);
      expect(documents.requested).toContain(new URL(profile.clientId!).pathname);
    });

    it('cannot fall back to `none` once private_key_jwt is negotiated (client_id alone is invalid_client)', async () => {
      const response = await fetch(`${host.issuer}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: 'not-a-token',
          client_id: profile.clientId!,
        }).toString(),
      });
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ error: 'invalid_client' });
    });
  });

  describe('VS Code: DCR public client, vscode.dev and loopback redirects, authorizing on another port', () => {
    const profile = loadProfile('vscode');
    let host: HostProcess;
    beforeAll(async () => {
      host = await startHost();
    });
    afterAll(async () => {
      await host?.stop();
    });

    it('registers, authorizes on http://127.0.0.1:<other port>/, exchanges, calls tools/list, refreshes twice', async () => {
      expect(profile.metadata.redirect_uris).not.toContain(profile.redirectUri);
      await driveProfile(host, profile, publicClient);
    });
  });

  describe('Cursor: DCR native client with a cursor:// private-use redirect', () => {
    const profile = loadProfile('cursor');
    let host: HostProcess;
    beforeAll(async () => {
      host = await startHost();
    });
    afterAll(async () => {
      await host?.stop();
    });

    it('registers as native, is redirected to cursor://, exchanges, calls tools/list, refreshes twice', async () => {
      await driveProfile(host, profile, publicClient);
    });

    it('the same registration without application_type native is refused (a dotless scheme needs it)', async () => {
      const { application_type: _, ...withoutType } = profile.metadata;
      await expect(registerClient(host, withoutType)).rejects.toThrow(/400/);
    });
  });
});
