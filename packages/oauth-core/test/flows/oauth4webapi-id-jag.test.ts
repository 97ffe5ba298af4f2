import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintIdJag, type TestIdp, testIdp, trustOf } from '../jwt-bearer/id-jag-kit.js';
import type { HttpHost } from './http-host.js';
import { startHttpHost } from './http-host.js';
import { discover, insecure, withNonceRetry } from './oauth4webapi-kit.js';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const CLIENT_ID = 'agent-1';

let host: HttpHost;
let idp: TestIdp;
let as: oauth.AuthorizationServer;
let secret: string;
beforeAll(async () => {
  idp = await testIdp();
  host = await startHttpHost(
    { enterpriseIssuers: [trustOf(idp, CLIENT_ID, { scopes: ['mcp'] })] },
    { dpop: { nonceSecret: 'the-e2e-deployment-secret-of-32-bytes+' } },
  );
  const created = await host.server.clients.provision('demo', {
    clientId: CLIENT_ID,
    grantTypes: [JWT_BEARER],
  });
  secret = String(created.clientSecret);
  as = await discover(host.issuer);
});
afterAll(async () => {
  await host.close();
});

describe('oauth4webapi redeems an ID-JAG with a DPoP proof and uses the bound token (RFC 7523, RFC 9449)', () => {
  it('the discovery document advertises the grant and the id-jag profile', () => {
    expect(as.grant_types_supported).toContain(JWT_BEARER);
    expect(as['authorization_grant_profiles_supported']).toEqual([
      'urn:ietf:params:oauth:grant-profile:id-jag',
    ]);
  });

  it('token_type DPoP, cnf.jkt, no refresh token; the resource accepts it with a proof by the same key', async () => {
    const client: oauth.Client = { client_id: CLIENT_ID };
    const DPoP = oauth.DPoP(client, await oauth.generateKeyPair('ES256'));
    const assertion = await mintIdJag(idp, CLIENT_ID, Date.now(), {
      claims: { aud: host.issuer, resource: `${host.issuer}/mcp`, scope: 'mcp' },
    });
    // One assertion for both attempts: the nonce challenge comes before the jti is spent.
    const { value: tokens } = await withNonceRetry(async () =>
      oauth.processGenericTokenEndpointResponse(
        as,
        client,
        await oauth.genericTokenEndpointRequest(
          as,
          client,
          oauth.ClientSecretBasic(secret),
          JWT_BEARER,
          { assertion },
          { DPoP, ...insecure },
        ),
      ),
    );
    expect(tokens.token_type).toBe('dpop');
    expect(tokens.refresh_token).toBeUndefined();
    expect(tokens.scope).toBe('mcp');
    const resource = new URL(`${host.issuer}/mcp`);
    // The resource asks for its own nonce first; oauth4webapi throws it as a nonce error, and the handle keeps it.
    const { value: response } = await withNonceRetry(async () =>
      oauth.protectedResourceRequest(tokens.access_token, 'GET', resource, undefined, undefined, {
        DPoP,
        ...insecure,
      }),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ sub: 'user-1' });
  });
});
