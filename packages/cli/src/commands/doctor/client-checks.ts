import { isLoopback } from './bounded-fetch.js';
import type { ClientProfile, Registration } from './client-profiles.js';
import type { Discovery } from './discovery.js';
import { error, type Finding, warning } from './finding.js';

/** What one client would meet: how it would register and authenticate, and every finding on its way. */
export interface ClientReport {
  readonly id: string;
  readonly name: string;
  /** How it would get a client id here, or null when it cannot. */
  readonly registration: Registration | null;
  /** The token endpoint auth method it would use here, or null when none fits. */
  readonly authMethod: string | null;
  readonly ok: boolean;
  readonly findings: readonly Finding[];
}

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : undefined;
}

const REGISTRATION_WORDS: Record<Registration, string> = {
  cimd: 'a client ID metadata document',
  dcr: 'dynamic client registration',
};

function endpointFindings(metadata: Record<string, unknown>): Finding[] {
  const findings: Finding[] = [];
  for (const field of ['authorization_endpoint', 'token_endpoint'] as const) {
    const value = metadata[field];
    if (typeof value !== 'string') {
      findings.push(
        error(`missing_${field}`, `The metadata has no ${field}.`, `Add ${field} to the metadata.`),
      );
      continue;
    }
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    if (url === undefined || !(url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url)))) {
      findings.push(
        error('insecure_endpoint', `${field} ${value} is not an https URL.`, `Serve ${field} over https.`),
      );
    }
  }
  return findings;
}

function registrationFor(
  profile: ClientProfile,
  metadata: Record<string, unknown>,
): { registration: Registration | null; findings: Finding[] } {
  const supported = (kind: Registration) =>
    kind === 'cimd'
      ? metadata['client_id_metadata_document_supported'] === true
      : typeof metadata['registration_endpoint'] === 'string';
  const registration = profile.registration.find(supported) ?? null;
  if (registration !== null) return { registration, findings: [] };
  const ways = profile.registration.map((kind) => REGISTRATION_WORDS[kind]).join(' or ');
  const fixes = profile.registration.map((kind) =>
    kind === 'cimd'
      ? `enable client ID metadata documents for ${profile.name}'s document host so the metadata says client_id_metadata_document_supported: true`
      : 'offer dynamic client registration (registration_endpoint)',
  );
  return {
    registration,
    findings: [
      error(
        profile.registration.includes('cimd') ? 'cimd_unsupported' : 'no_registration_endpoint',
        `${profile.name} gets its client id through ${ways}, and the metadata offers neither.`,
        `${fixes.join(', or ')}.`.replace(/^./, (first) => first.toUpperCase()),
      ),
    ],
  };
}

function authMethodFor(
  profile: ClientProfile,
  metadata: Record<string, unknown>,
): { authMethod: string | null; findings: Finding[] } {
  // RFC 8414 §2: an absent list means client_secret_basic only.
  const advertised = strings(metadata['token_endpoint_auth_methods_supported']) ?? ['client_secret_basic'];
  const authMethod = profile.authMethods.find((method) => advertised.includes(method)) ?? null;
  const wanted = profile.authMethods.map((method) => `"${method}"`).join(' or ');
  if (authMethod === null) {
    return {
      authMethod,
      findings: [
        error(
          'auth_method_unadvertised',
          `token_endpoint_auth_methods_supported (${advertised.join(', ')}) lacks ${wanted}, the way ${profile.name} authenticates at the token endpoint.`,
          `Add ${wanted} to token_endpoint_auth_methods_supported${profile.authMethods.includes('none') ? ' (public clients with PKCE)' : ''}.`,
        ),
      ],
    };
  }
  const findings: Finding[] = [];
  if (authMethod !== profile.authMethods[0]) {
    findings.push(
      warning(
        'auth_method_fallback',
        `${profile.name} prefers "${profile.authMethods[0]}" and falls back to "${authMethod}".`,
        `Add "${profile.authMethods[0]}" to token_endpoint_auth_methods_supported.`,
      ),
    );
  }
  if (authMethod === 'private_key_jwt' && profile.assertionAlg !== undefined) {
    const algs = strings(metadata['token_endpoint_auth_signing_alg_values_supported']);
    if (algs !== undefined && !algs.includes(profile.assertionAlg)) {
      findings.push(
        error(
          'assertion_alg_unsupported',
          `${profile.name} signs its client assertion with ${profile.assertionAlg}, which token_endpoint_auth_signing_alg_values_supported (${algs.join(', ')}) lacks.`,
          `Accept ${profile.assertionAlg} client assertions.`,
        ),
      );
    }
  }
  return { authMethod, findings };
}

function flowFindings(profile: ClientProfile, metadata: Record<string, unknown>): Finding[] {
  const findings: Finding[] = [];
  const responseTypes = strings(metadata['response_types_supported']);
  if (responseTypes === undefined || !responseTypes.includes('code')) {
    findings.push(
      error(
        'response_type_code',
        'response_types_supported does not list "code".',
        'Add response_types_supported: ["code"].',
      ),
    );
  }
  const methods = strings(metadata['code_challenge_methods_supported']);
  if (methods === undefined || !methods.includes('S256')) {
    findings.push(
      error(
        'pkce_s256',
        `code_challenge_methods_supported ${methods === undefined ? 'is missing' : `(${methods.join(', ')}) lacks S256`}; MCP clients refuse a server that does not advertise PKCE S256.`,
        'Advertise code_challenge_methods_supported: ["S256"].',
      ),
    );
  }
  const grants = strings(metadata['grant_types_supported']);
  if (grants !== undefined && !grants.includes('authorization_code')) {
    findings.push(
      error(
        'grant_authorization_code',
        'grant_types_supported lacks "authorization_code".',
        'Add "authorization_code" to grant_types_supported.',
      ),
    );
  }
  if (grants !== undefined && !grants.includes('refresh_token')) {
    findings.push(
      warning(
        'grant_refresh_token',
        `grant_types_supported lacks "refresh_token": ${profile.name} must sign in again whenever its access token expires.`,
        'Add "refresh_token" to grant_types_supported.',
      ),
    );
  }
  return findings;
}

function scopeFindings(discovery: Discovery, metadata: Record<string, unknown>): Finding[] {
  const resourceScopes = strings(discovery.protectedResourceMetadata?.['scopes_supported']);
  const serverScopes = strings(metadata['scopes_supported']);
  const requested = discovery.challengeScope?.split(' ').filter(Boolean) ?? resourceScopes;
  if (requested === undefined && serverScopes === undefined) {
    return [
      warning(
        'no_scopes_advertised',
        'Neither the challenge, the protected resource metadata nor the server metadata names scopes, so the client asks for none.',
        'List scopes_supported in the protected resource metadata (and the scope the resource needs in the challenge).',
      ),
    ];
  }
  const unknown =
    serverScopes === undefined ? [] : (requested ?? []).filter((s) => !serverScopes.includes(s));
  return unknown.length === 0
    ? []
    : [
        warning(
          'scope_not_offered',
          `The resource asks for ${unknown.join(', ')}, which the server's scopes_supported does not list.`,
          'Offer the resource’s scopes on the authorization server, or stop asking for them.',
        ),
      ];
}

function reachabilityFindings(profile: ClientProfile, discovery: Discovery): Finding[] {
  if (!profile.hosted) return [];
  const host = new URL(discovery.issuer ?? discovery.target);
  return isLoopback(host)
    ? [
        warning(
          'loopback_unreachable',
          `${profile.name} signs in from its own servers, which cannot reach ${host.host} on this machine.`,
          'Expose the deployment at a public https URL before adding it to this client.',
        ),
      ]
    : [];
}

/** Replays one client's shape against the documents; `cors` are the browser findings when it is one. */
export function checkClient(
  profile: ClientProfile,
  discovery: Discovery,
  cors: readonly Finding[] = [],
): ClientReport {
  const metadata = discovery.authorizationServerMetadata;
  const report = (
    registration: Registration | null,
    authMethod: string | null,
    findings: readonly Finding[],
  ): ClientReport => ({
    id: profile.id,
    name: profile.name,
    registration,
    authMethod,
    ok: findings.every((finding) => finding.severity !== 'error'),
    findings,
  });
  if (metadata === undefined) return report(null, null, discovery.findings);
  const registration = registrationFor(profile, metadata);
  const auth = authMethodFor(profile, metadata);
  return report(registration.registration, auth.authMethod, [
    ...discovery.findings,
    ...endpointFindings(metadata),
    ...flowFindings(profile, metadata),
    ...registration.findings,
    ...auth.findings,
    ...scopeFindings(discovery, metadata),
    ...reachabilityFindings(profile, discovery),
    ...(profile.browserOrigin === undefined ? [] : cors),
  ]);
}
