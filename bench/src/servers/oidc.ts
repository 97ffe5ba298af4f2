// node-oidc-provider configured like Keyhold's token endpoint: client_credentials, a confidential client with
// client_secret_basic, JWT access tokens (RFC 9068 through resourceIndicators) signed ES256 with a 900 s
// lifetime, its default in-memory adapter. It cannot introspect JWT access tokens (it rejects structured
// tokens there), so a second resource, `/opaque`, issues opaque tokens for the introspection runs.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { Provider } from 'oidc-provider';
import { announce } from './common.js';

const clientId = 'bench-client';
const clientSecret = randomBytes(32).toString('base64url');
const server = createServer();
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const address = server.address();
const port = typeof address === 'object' && address ? address.port : 0;
const issuer = `http://127.0.0.1:${port}`;
const jwtResource = `${issuer}/mcp`;
const opaqueResource = `${issuer}/opaque`;
const privateJwk = {
  ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }),
  kid: 'k1',
  alg: 'ES256',
  use: 'sig',
};

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: clientId,
      client_secret: clientSecret,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: 'ES256',
    },
  ],
  jwks: { keys: [privateJwk as never] },
  features: {
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    devInteractions: { enabled: false },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => jwtResource,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, resource) => ({
        scope: '',
        audience: resource,
        accessTokenTTL: 900,
        accessTokenFormat: resource === opaqueResource ? 'opaque' : 'jwt',
        jwt: { sign: { alg: 'ES256' } },
      }),
    },
  },
});
provider.proxy = false;
server.on('request', provider.callback());
announce({
  url: issuer,
  tokenPath: '/token',
  introspectPath: '/token/introspection',
  clientId,
  clientSecret,
});
