/**
 * How a client gets a client id, in the order it tries them: `cimd` a client ID metadata document (its
 * URL is the client id), `dcr` dynamic client registration (RFC 7591).
 */
export type Registration = 'cimd' | 'dcr';

/** The shape of a real MCP client, as the doctor replays it (conformance/fixtures/clients records four). */
export interface ClientProfile {
  readonly id: string;
  readonly name: string;
  readonly registration: readonly Registration[];
  /** Token endpoint auth methods it can use, preferred first. */
  readonly authMethods: readonly string[];
  /** The `alg` it signs `private_key_jwt` assertions with. */
  readonly assertionAlg?: string;
  readonly redirectUri: string;
  /** Its sign-in runs on its own servers: they must reach the deployment from the internet. */
  readonly hosted: boolean;
  /** A browser origin it calls the endpoints from (CORS applies). */
  readonly browserOrigin?: string;
  /** It sends the RFC 8707 `resource` parameter and checks the PRM's `resource` against the URL. */
  readonly sendsResource: boolean;
}

/** The clients people use, as far as their public behaviour is recorded. */
export const CLIENT_PROFILES: readonly ClientProfile[] = Object.freeze([
  {
    id: 'claude',
    name: 'Claude',
    registration: ['cimd'],
    authMethods: ['none'],
    redirectUri: 'https://claude.ai/api/mcp/auth_callback',
    hosted: true,
    sendsResource: true,
  },
  {
    id: 'chatgpt',
    name: 'ChatGPT',
    registration: ['cimd'],
    authMethods: ['private_key_jwt', 'none'],
    assertionAlg: 'RS256',
    redirectUri: 'https://chatgpt.com/connector_platform_oauth_redirect',
    hosted: true,
    sendsResource: true,
  },
  {
    id: 'vscode',
    name: 'VS Code',
    registration: ['dcr'],
    authMethods: ['none'],
    redirectUri: 'http://127.0.0.1:33418/',
    hosted: false,
    sendsResource: true,
  },
  {
    id: 'cursor',
    name: 'Cursor',
    registration: ['dcr'],
    authMethods: ['none'],
    redirectUri: 'cursor://anysphere.cursor-retrieval/oauth/user-keyhold/callback',
    hosted: false,
    sendsResource: false,
  },
  {
    id: 'mcp-sdk-v1',
    name: 'MCP SDK v1',
    registration: ['dcr', 'cimd'],
    authMethods: ['none'],
    redirectUri: 'http://localhost:3000/callback',
    hosted: false,
    sendsResource: true,
  },
  {
    id: 'mcp-sdk-v2',
    name: 'MCP SDK v2',
    registration: ['cimd', 'dcr'],
    authMethods: ['none'],
    redirectUri: 'http://localhost:3000/callback',
    hosted: false,
    sendsResource: true,
  },
  {
    id: 'mcp-inspector',
    name: 'MCP Inspector (browser)',
    registration: ['dcr', 'cimd'],
    authMethods: ['none'],
    redirectUri: 'http://localhost:6274/oauth/callback',
    hosted: false,
    browserOrigin: 'http://localhost:6274',
    sendsResource: true,
  },
]);
