import { boundedFetch, type Fetched, FetchRefusedError, jsonObject } from './bounded-fetch.js';
import { error, type Finding, warning } from './finding.js';

type Json = Record<string, unknown>;

/** What the doctor learnt about a deployment without a user, and what already went wrong on the way. */
export interface Discovery {
  readonly target: string;
  /** `resource`: the URL is an MCP endpoint; `issuer`: it is an authorization server's issuer. */
  readonly kind: 'resource' | 'issuer';
  readonly protectedResourceMetadataUrl?: string;
  readonly protectedResourceMetadata?: Json;
  /** The `scope` of the 401 challenge, when it had one. */
  readonly challengeScope?: string;
  readonly issuer?: string;
  readonly authorizationServerMetadataUrl?: string;
  readonly authorizationServerMetadata?: Json;
  /** Findings every client would hit; an `error` here without metadata means no client can start. */
  readonly findings: readonly Finding[];
}

/** The metadata URLs of an issuer in the order MCP clients try them: RFC 8414, then both OpenID forms. */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}

/** The RFC 9728 well-known URL of a resource's metadata. */
export function protectedResourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return `${url.origin}/.well-known/oauth-protected-resource${path}`;
}

function sameUrl(a: string, b: string): boolean {
  const strip = (value: string) => value.replace(/\/$/, '');
  return strip(a) === strip(b);
}

async function getJson(fetchImpl: typeof fetch, url: string): Promise<{ fetched: Fetched; json?: Json }> {
  const fetched = await boundedFetch(fetchImpl, url, { headers: { accept: 'application/json' } });
  const json = fetched.status === 200 ? jsonObject(fetched) : undefined;
  return json === undefined ? { fetched } : { fetched, json };
}

async function authorizationServer(
  fetchImpl: typeof fetch,
  issuer: string,
): Promise<{ url: string; metadata: Json } | { tried: string[] }> {
  const tried: string[] = [];
  for (const url of metadataUrls(issuer)) {
    tried.push(url);
    try {
      const { json } = await getJson(fetchImpl, url);
      if (json !== undefined) return { url, metadata: json };
    } catch (cause) {
      if (!(cause instanceof FetchRefusedError)) throw cause;
    }
  }
  return { tried };
}

/** The `resource_metadata` and `scope` parameters of a `WWW-Authenticate: Bearer` challenge. */
export function challengeParameters(header: string | null): { resourceMetadata?: string; scope?: string } {
  if (header === null || !/^\s*bearer\b/i.test(header)) return {};
  const value = (name: string) => new RegExp(`\\b${name}="([^"]*)"`, 'i').exec(header)?.[1];
  const resourceMetadata = value('resource_metadata');
  const scope = value('scope');
  return {
    ...(resourceMetadata === undefined ? {} : { resourceMetadata }),
    ...(scope === undefined ? {} : { scope }),
  };
}

// The request an MCP client opens with; without a token the endpoint must answer 401 and nothing else.
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'keyhold-doctor', version: '1' },
  },
});

/**
 * Walks from `target` to the documents a client reads: an issuer's metadata directly, or from an MCP URL the
 * 401 challenge's `resource_metadata` (else the RFC 9728 well-known URL), the protected-resource metadata and
 * then its first authorization server's metadata. Only GETs and one unauthenticated `initialize`.
 */
export async function discover(fetchImpl: typeof fetch, target: string): Promise<Discovery> {
  const asIssuer = await authorizationServer(fetchImpl, target);
  if ('metadata' in asIssuer && sameUrl(String(asIssuer.metadata['issuer'] ?? ''), target)) {
    return {
      target,
      kind: 'issuer',
      issuer: target,
      authorizationServerMetadataUrl: asIssuer.url,
      authorizationServerMetadata: asIssuer.metadata,
      findings: [],
    };
  }

  const findings: Finding[] = [];
  let challenge: { resourceMetadata?: string; scope?: string } = {};
  const probe = await boundedFetch(fetchImpl, target, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: INITIALIZE,
  });
  if (probe.status !== 401) {
    findings.push(
      error(
        'no_challenge',
        `${target} answered ${probe.status} to a request without a token, so no client starts a sign-in.`,
        'Answer requests without a bearer token with 401 and a WWW-Authenticate: Bearer challenge (MCP authorization).',
      ),
    );
  } else {
    challenge = challengeParameters(probe.headers.get('www-authenticate'));
    if (challenge.resourceMetadata === undefined) {
      findings.push(
        warning(
          'challenge_without_resource_metadata',
          'The 401 challenge has no resource_metadata parameter; clients must guess the RFC 9728 well-known URL.',
          'Add resource_metadata="<protected resource metadata URL>" to the WWW-Authenticate header.',
        ),
      );
    }
  }
  const prmUrl = challenge.resourceMetadata ?? protectedResourceMetadataUrl(target);
  let prm: Json | undefined;
  try {
    prm = (await getJson(fetchImpl, prmUrl)).json;
  } catch (cause) {
    if (!(cause instanceof FetchRefusedError)) throw cause;
  }
  const scoped = challenge.scope === undefined ? {} : { challengeScope: challenge.scope };
  if (prm === undefined) {
    findings.push(
      error(
        'no_protected_resource_metadata',
        `No protected resource metadata at ${prmUrl}.`,
        'Serve RFC 9728 metadata (resource, authorization_servers) at the URL the challenge names.',
      ),
    );
    return { target, kind: 'resource', protectedResourceMetadataUrl: prmUrl, ...scoped, findings };
  }
  const base = {
    target,
    kind: 'resource' as const,
    protectedResourceMetadataUrl: prmUrl,
    protectedResourceMetadata: prm,
    ...scoped,
  };
  if (typeof prm['resource'] !== 'string' || !sameUrl(prm['resource'], target)) {
    findings.push(
      error(
        'resource_mismatch',
        `The protected resource metadata names resource ${JSON.stringify(prm['resource'])}, not ${target}; clients that check it stop, and tokens minted for it do not fit this URL.`,
        `Set resource to exactly ${target} (the URL clients connect to).`,
      ),
    );
  }
  const servers = prm['authorization_servers'];
  const issuer = Array.isArray(servers) && typeof servers[0] === 'string' ? servers[0] : undefined;
  if (issuer === undefined) {
    findings.push(
      error(
        'no_authorization_servers',
        'The protected resource metadata lists no authorization_servers, so clients cannot find where to sign in.',
        'Add authorization_servers: ["<issuer URL>"] to the protected resource metadata.',
      ),
    );
    return { ...base, findings };
  }
  const server = await authorizationServer(fetchImpl, issuer);
  if (!('metadata' in server)) {
    findings.push(
      error(
        'no_authorization_server_metadata',
        `No authorization server metadata for ${issuer} (tried ${server.tried.join(', ')}).`,
        'Serve RFC 8414 metadata at /.well-known/oauth-authorization-server/<issuer path>.',
      ),
    );
    return { ...base, issuer, findings };
  }
  if (!sameUrl(String(server.metadata['issuer'] ?? ''), issuer)) {
    findings.push(
      error(
        'issuer_mismatch',
        `The metadata at ${server.url} names issuer ${JSON.stringify(server.metadata['issuer'])}, not ${issuer}; clients must reject it (RFC 8414 §3.3).`,
        `Set issuer to ${issuer}, or list the real issuer in authorization_servers.`,
      ),
    );
  }
  return {
    ...base,
    issuer,
    authorizationServerMetadataUrl: server.url,
    authorizationServerMetadata: server.metadata,
    findings,
  };
}
