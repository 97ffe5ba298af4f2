import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
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

  readonly clientMetadataUrl?: string;

  constructor(
    readonly redirectUrl: string,
    clientMetadataUrl?: string,
  ) {
    if (clientMetadataUrl !== undefined) this.clientMetadataUrl = clientMetadataUrl;
  }

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
 * Loads the consent screen as a browser does (with the session cookie, if any) and returns what its form
 * needs: the cookie header to send back (session + the page's anti-forgery cookie) and the `csrf_token`.
 */
export async function loadConsentForm(
  consentUrl: URL,
  sessionCookie?: string,
): Promise<{ cookie: string; csrfToken: string }> {
  const page = await fetch(consentUrl, { headers: sessionCookie ? { cookie: sessionCookie } : {} });
  if (page.status !== 200) throw new Error(`consent page answered ${page.status}`);
  const consentCookie = (page.headers.get('set-cookie') ?? '').split(';', 1)[0] ?? '';
  const csrfToken = /name="csrf_token" value="([^"]+)"/.exec(await page.text())?.[1];
  if (!consentCookie || !csrfToken) throw new Error('the consent page carries no anti-forgery token');
  return { cookie: [sessionCookie, consentCookie].filter(Boolean).join('; '), csrfToken };
}

/** POSTs the consent form (`req`, `decision`, `csrf_token`) with the given cookies; the response is not followed. */
export function postConsent(
  consentUrl: URL,
  form: { cookie?: string; csrfToken?: string; decision?: string; headers?: Record<string, string> },
): Promise<Response> {
  return fetch(new URL(consentUrl.pathname, consentUrl), {
    method: 'POST',
    redirect: 'manual',
    headers: {
      ...(form.cookie ? { cookie: form.cookie } : {}),
      'content-type': 'application/x-www-form-urlencoded',
      ...form.headers,
    },
    body: new URLSearchParams({
      req: consentUrl.searchParams.get('req') ?? '',
      decision: form.decision ?? 'approve',
      ...(form.csrfToken === undefined ? {} : { csrf_token: form.csrfToken }),
    }).toString(),
  });
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
    response = await postConsent(location, await loadConsentForm(location, cookie));
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

/**
 * The whole OAuth dance of an MCP client against an MCP endpoint: the 401, discovery, registration, the
 * browser step and the code exchange. Afterwards `provider` holds tokens every new transport can use.
 */
export async function authorizeMcpClient(
  mcpUrl: URL,
  provider: TestOAuthProvider,
): Promise<{ sawConsent: boolean }> {
  await new Client({ name: 'authorize', version: '1.0.0' })
    .connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }))
    .catch(() => {});
  if (!provider.authorizationUrl) throw new Error('the client was not sent to authorize');
  const { code, sawConsent } = await approveInBrowser(provider.authorizationUrl);
  await new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }).finishAuth(code);
  return { sawConsent };
}

/** Redeems an authorization code at the host's token endpoint as a public client; answers the raw response. */
export function redeemCode(
  hostUrl: string,
  grant: { code: string; verifier: string; redirectUri: string; clientId: string },
): Promise<Response> {
  return fetch(`${hostUrl}/tenant/demo/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: grant.code,
      code_verifier: grant.verifier,
      redirect_uri: grant.redirectUri,
      client_id: grant.clientId,
    }).toString(),
  });
}
