import { createMemoryRateLimiter } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import type { AuthorizationServerOptions, CimdOptions } from '../src/index.js';
import { createAuthorizationServer, createMemoryStorage, OAuthCoreError } from '../src/index.js';
import type { CimdFetchAttributes } from '../src/metrics-types.js';
import { createTestServer, get, json, location, pkce, REDIRECT_URI, USER } from './helpers.js';

const CLIENT_ID = 'https://app.example/oauth/client.json';
const DOCUMENT = { client_id: CLIENT_ID, client_name: 'Metadata App', redirect_uris: [REDIRECT_URI] };

/** A network that serves the one document, counting what it is asked. */
function documentNetwork() {
  const requested: string[] = [];
  const fetch: NonNullable<CimdOptions['fetch']> = async (url) => {
    requested.push(url);
    return url === CLIENT_ID
      ? Response.json(DOCUMENT, { headers: { 'cache-control': 'max-age=300' } })
      : new Response('not here', { status: 404 });
  };
  return { fetch, requested };
}

async function authorizeDocumentClient(
  options: Partial<AuthorizationServerOptions>,
  allowedCimdDomains: readonly string[] = ['app.example'],
) {
  const cimdFetches: CimdFetchAttributes[] = [];
  const t = await createTestServer({
    tenant: { allowedCimdDomains },
    options: {
      metrics: { event: () => {}, cimdFetch: (attributes) => cimdFetches.push(attributes) },
      ...options,
    },
  });
  const { challenge } = pkce();
  const result = await t.server.authorize(
    get(
      '/tenant/demo/authorize',
      {
        client_id: CLIENT_ID,
        response_type: 'code',
        redirect_uri: REDIRECT_URI,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        scope: 'mcp',
      },
      USER,
    ),
    'demo',
  );
  const metadata = json(await t.server.authorizationServerMetadata(get('/'), 'demo'));
  return { t, result, metadata, cimdFetches };
}

describe('the cimd option turns metadata-document clients on', () => {
  it('without it, an https client_id is invalid_client and CIMD is not advertised', async () => {
    const { result, metadata } = await authorizeDocumentClient({});
    expect(result.status).toBe(400);
    expect(result.body).toContain('does not accept metadata-document client ids');
    expect(metadata.client_id_metadata_document_supported).toBe(false);
  });

  it('with it, the document is fetched through its fetch, counted on the server metrics and CIMD is advertised', async () => {
    const network = documentNetwork();
    const { result, metadata, cimdFetches } = await authorizeDocumentClient({
      cimd: { fetch: network.fetch },
    });
    expect(location(result).pathname).toBe('/tenant/demo/consent');
    expect(network.requested).toEqual([CLIENT_ID]);
    expect(cimdFetches).toEqual([{ status: 'success', cached: false }]);
    expect(metadata.client_id_metadata_document_supported).toBe(true);
  });

  it('still fetches nothing for a tenant whose allowlist is empty', async () => {
    const network = documentNetwork();
    const { result, metadata } = await authorizeDocumentClient({ cimd: { fetch: network.fetch } }, []);
    expect(result.status).toBe(400);
    expect(network.requested).toEqual([]);
    expect(metadata.client_id_metadata_document_supported).toBe(false);
  });
});

describe('the cimd fetch gets the SSRF-safe fetch as its third argument', () => {
  it('so a host can rewrite some URLs and hand the others on', async () => {
    const handedOn: string[] = [];
    const { result } = await authorizeDocumentClient({
      cimd: {
        fetch: (url, init, safeFetch) => {
          expect(typeof safeFetch).toBe('function');
          handedOn.push(url);
          return documentNetwork().fetch(url, init, safeFetch);
        },
      },
    });
    expect(location(result).pathname).toBe('/tenant/demo/consent');
    expect(handedOn).toEqual([CLIENT_ID]);
  });
});

describe('the cimd option is checked when the server is created', () => {
  const creating = (cimd: unknown) => () =>
    createAuthorizationServer({
      baseUrl: 'https://auth.example',
      tenants: { get: () => undefined },
      storage: createMemoryStorage(),
      cimd: cimd as CimdOptions,
    });

  it.each([
    ['a fetch that is not a function', { fetch: 'https://proxy.example' }, /cimd.fetch/],
    ['a zero timeout', { timeoutMs: 0 }, /timeoutMs/],
    ['a min max-age above the max', { minMaxAgeSeconds: 600, maxMaxAgeSeconds: 60 }, /minMaxAgeSeconds/],
    ['allowedAddresses that are not strings', { allowedAddresses: [127001] }, /cimd.allowedAddresses/],
    ['a ca that is not PEM text', { ca: 42 }, /cimd.ca/],
    ['a fetch budget without a limiter', { fetchRateLimit: { limit: 5 } }, /fetchRateLimit.limiter/],
    ['a key-set throttle of zero', { jwks: { refetchThrottleSeconds: 0 } }, /refetchThrottleSeconds/],
  ])('refuses %s with ERR_INVALID_OPTIONS', (_name, cimd, message) => {
    const create = creating(cimd);
    expect(create).toThrow(OAuthCoreError);
    expect(create).toThrow(message);
  });

  it('accepts a budget over a limiter and the defaults', () => {
    expect(creating({})).not.toThrow();
    expect(creating({ fetchRateLimit: { limiter: createMemoryRateLimiter() } })).not.toThrow();
  });
});

describe('the resolvers of earlier versions are refused with the option that replaces them', () => {
  const options = {
    baseUrl: 'https://auth.example',
    tenants: { get: () => undefined },
    storage: createMemoryStorage(),
  };

  it('cimdResolver names the cimd option', () => {
    const legacy = { ...options, cimdResolver: { resolve: async () => ({}) } };
    expect(() => createAuthorizationServer(legacy as AuthorizationServerOptions)).toThrow(
      /cimdResolver is no longer an option: configure metadata-document clients with cimd/,
    );
  });

  it('clientAssertions.jwksResolver names the cimd option', () => {
    const legacy = { ...options, clientAssertions: { jwksResolver: { resolve: async () => ({}) } } };
    expect(() => createAuthorizationServer(legacy as AuthorizationServerOptions)).toThrow(
      /clientAssertions.jwksResolver is no longer an option/,
    );
  });
});
