import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';

/**
 * The OAuth side of an MCP client as a real one keeps it (client registration, tokens, PKCE verifier),
 * with the browser replaced by {@link approveInBrowser}.
 */
export class TestOAuthProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  savedTokens: OAuthTokens | undefined;
  information: OAuthClientInformationMixed | undefined;
  private verifier = '';

  constructor(
    readonly redirectUrl: string,
    readonly clientMetadataUrl?: string,
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Keyhold e2e client',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed): void {
    this.information = information;
  }
  tokens(): OAuthTokens | undefined {
    return this.savedTokens;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.savedTokens = tokens;
  }
  redirectToAuthorization(authorizationUrl: URL): void {
    this.authorizationUrl = authorizationUrl;
  }
  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }
}

/**
 * What a person does in the browser: open the authorization URL, approve the consent screen if it is shown,
 * and land on the redirect URI. Returns the code from that final redirect.
 */
export async function approveInBrowser(
  authorizationUrl: URL,
  cookie?: string,
): Promise<{ code: string; state: string | null; iss: string | null; sawConsent: boolean }> {
  const headers: Record<string, string> = cookie ? { cookie } : {};
  let response = await fetch(authorizationUrl, { redirect: 'manual', headers });
  let location = new URL(response.headers.get('location') ?? '', authorizationUrl);
  let sawConsent = false;
  if (location.pathname.endsWith('/consent')) {
    sawConsent = true;
    const page = await fetch(location, { headers });
    if (page.status !== 200) throw new Error(`consent page answered ${page.status}`);
    const req = location.searchParams.get('req')!;
    response = await fetch(location, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ req, decision: 'approve' }).toString(),
    });
    location = new URL(response.headers.get('location') ?? '', authorizationUrl);
  }
  const code = location.searchParams.get('code');
  if (response.status !== 302 || !code) {
    throw new Error(
      `expected a redirect with a code, got ${response.status} to ${location.href}: ${await response.text()}`,
    );
  }
  return {
    code,
    state: location.searchParams.get('state'),
    iss: location.searchParams.get('iss'),
    sawConsent,
  };
}
