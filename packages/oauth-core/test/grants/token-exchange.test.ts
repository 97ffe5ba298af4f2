import type { JWK } from 'jose';
import { importJWK, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { ACCESS_TOKEN_TYPE, TOKEN_EXCHANGE_GRANT } from '../../src/grants/token-exchange.js';
import { MAX_ACTOR_NESTING } from '../../src/tokens.js';
import type { TestServer } from '../helpers.js';
import {
  basic,
  createTestServer,
  decodePayload,
  exchangeCode,
  ISSUER,
  json,
  obtainCode,
  postForm,
  provisionClient,
  REDIRECT_URI,
  RESOURCE,
  registerClient,
} from '../helpers.js';

interface Party {
  client_id: string;
  client_secret?: string;
}

// Every audience these tests exchange for; the servers are provisioned with exactly these.
const AUDIENCES = [
  'https://files.example',
  'https://files.example/api',
  'blob-store',
  'storage',
  'svc',
  'x',
  RESOURCE,
];

async function setup() {
  const t = await createTestServer();
  const app = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
  const { code, verifier } = await obtainCode(t, app.client_id, { scope: 'files:read files:write mcp' });
  const userToken = String(json(await exchangeCode(t, app, code, verifier)).access_token);
  const servers: Party[] = [];
  for (let i = 0; i < 3; i++) {
    servers.push(
      await provisionClient(t.server, {
        grantTypes: [TOKEN_EXCHANGE_GRANT],
        clientName: `server-${i}`,
        tokenExchangeAudiences: AUDIENCES,
      }),
    );
  }
  return { t, userToken, servers };
}

function exchange(t: TestServer, as: Party, params: Record<string, string | undefined>) {
  return t.server.token(
    postForm(
      '/tenant/demo/token',
      { grant_type: TOKEN_EXCHANGE_GRANT, subject_token_type: ACCESS_TOKEN_TYPE, ...params },
      basic(as.client_id, String(as.client_secret)),
    ),
    'demo',
  );
}

async function introspect(t: TestServer, as: Party, token: string) {
  return json(
    await t.server.introspect(
      postForm('/tenant/demo/introspect', { token }, basic(as.client_id, String(as.client_secret))),
      'demo',
    ),
  );
}

describe('RFC 8693 token exchange', () => {
  it('issues a downstream-audience token with an act claim for the acting client', async () => {
    const { t, userToken, servers } = await setup();
    const [first] = servers as [Party];
    const result = await exchange(t, first, { subject_token: userToken, audience: 'https://files.example' });
    expect(result.status).toBe(200);
    const body = json(result);
    expect(body).toMatchObject({
      issued_token_type: ACCESS_TOKEN_TYPE,
      token_type: 'Bearer',
      scope: 'files:read files:write mcp',
    });
    expect(body.refresh_token).toBeUndefined();
    const claims = decodePayload(String(body.access_token));
    const original = decodePayload(userToken);
    expect(claims).toMatchObject({
      iss: ISSUER,
      sub: 'user-1',
      aud: 'https://files.example',
      client_id: first.client_id,
      act: { sub: `client:${first.client_id}`, client_id: first.client_id },
    });
    expect(claims.jti).not.toBe(original.jti);
    expect(Number(claims.exp)).toBeLessThanOrEqual(Number(original.exp));
  });

  it('chains three deep: each exchange nests the previous act, narrows scope and audience, and introspects', async () => {
    const { t, userToken, servers } = await setup();
    const [a, b, c] = servers as [Party, Party, Party];
    const one = json(
      await exchange(t, a, {
        subject_token: userToken,
        resource: 'https://files.example/api',
        scope: 'files:read files:write',
      }),
    );
    const two = json(
      await exchange(t, b, {
        subject_token: String(one.access_token),
        audience: 'storage',
        scope: 'files:read',
      }),
    );
    const three = json(
      await exchange(t, c, { subject_token: String(two.access_token), audience: 'blob-store' }),
    );
    const claims = decodePayload(String(three.access_token));
    expect(claims).toMatchObject({
      sub: 'user-1',
      aud: 'blob-store',
      scope: 'files:read',
      act: {
        sub: `client:${c.client_id}`,
        act: { sub: `client:${b.client_id}`, act: { sub: `client:${a.client_id}` } },
      },
    });
    expect(new Set([one, two, three].map((body) => decodePayload(String(body.access_token)).jti)).size).toBe(
      3,
    );
    const described = await introspect(t, c, String(three.access_token));
    expect(described).toMatchObject({
      active: true,
      sub: 'user-1',
      aud: 'blob-store',
      scope: 'files:read',
      iss: ISSUER,
    });
    expect((described.act as { act: unknown }).act).toBeDefined();
    // The narrowed scope holds: widening again is refused.
    const widened = await exchange(t, a, {
      subject_token: String(two.access_token),
      audience: 'x',
      scope: 'files:write',
    });
    expect(json(widened).error).toBe('invalid_scope');
  });

  it('the exchanged token is refused by the tenant resource: its audience is the downstream service', async () => {
    const { t, userToken, servers } = await setup();
    const body = json(
      await exchange(t, servers[0] as Party, { subject_token: userToken, audience: 'https://files.example' }),
    );
    expect((await t.server.verifyAccessToken('demo', `Bearer ${body.access_token}`)).ok).toBe(false);
    const downstream = await t.server.verifyAccessToken('demo', `Bearer ${body.access_token}`, {
      resource: 'https://files.example',
    });
    expect(downstream.ok).toBe(true);
  });

  it('refuses an audience or resource naming the tenant’s own MCP resource (no laundering back to MCP)', async () => {
    const { t, userToken, servers } = await setup();
    const downstream = json(
      await exchange(t, servers[0] as Party, { subject_token: userToken, audience: 'https://files.example' }),
    );
    for (const target of [{ audience: RESOURCE }, { resource: RESOURCE }]) {
      const laundered = await exchange(t, servers[1] as Party, {
        subject_token: String(downstream.access_token),
        ...target,
      });
      expect(laundered.status).toBe(400);
      expect(json(laundered).error).toBe('invalid_target');
    }
  });

  it('an actor token the exchanging client holds names its user in act.sub', async () => {
    const { t, userToken } = await setup();
    // An agent that a second user authorized, and that exchanges on its own behalf as that user's actor.
    const agent = await provisionClient(t.server, {
      grantTypes: ['authorization_code', TOKEN_EXCHANGE_GRANT],
      redirectUris: [REDIRECT_URI],
      clientName: 'agent',
      tokenExchangeAudiences: AUDIENCES,
    });
    const { code, verifier } = await obtainCode(t, agent.client_id, { scope: 'agent', userId: 'user-2' });
    const actorToken = String(json(await exchangeCode(t, agent, code, verifier)).access_token);
    const body = json(
      await exchange(t, agent, {
        subject_token: userToken,
        actor_token: actorToken,
        actor_token_type: ACCESS_TOKEN_TYPE,
        audience: 'svc',
      }),
    );
    expect(decodePayload(String(body.access_token)).act).toEqual({
      sub: 'user-2',
      client_id: agent.client_id,
    });
  });

  it.each([
    [
      'a SAML subject token type',
      { subject_token_type: 'urn:ietf:params:oauth:token-type:saml2' },
      'unsupported_token_type',
    ],
    [
      'a JWT subject token type',
      { subject_token_type: 'urn:ietf:params:oauth:token-type:jwt' },
      'unsupported_token_type',
    ],
    [
      'an actor token of another type',
      { actor_token: 'x', actor_token_type: 'urn:ietf:params:oauth:token-type:id_token' },
      'unsupported_token_type',
    ],
    ['an actor token without its type', { actor_token: 'x' }, 'invalid_request'],
    ['no audience or resource', { audience: undefined }, 'invalid_request'],
    ['a wider scope', { scope: 'admin' }, 'invalid_scope'],
    ['an invalid subject token', { subject_token: 'a.b.c' }, 'invalid_request'],
  ])('refuses %s', async (_, overrides, error) => {
    const { t, userToken, servers } = await setup();
    const result = await exchange(t, servers[0] as Party, {
      subject_token: userToken,
      audience: 'svc',
      ...overrides,
    });
    expect(json(result).error).toBe(error);
  });

  it('refuses a revoked subject token', async () => {
    const { t, userToken, servers } = await setup();
    const claims = decodePayload(userToken);
    await t.storage.revokedAccessTokens.revoke('demo', String(claims.jti), Number(claims.exp) * 1000);
    expect(
      json(await exchange(t, servers[0] as Party, { subject_token: userToken, audience: 'svc' })).error,
    ).toBe('invalid_request');
  });

  it('refuses a client not registered for token exchange', async () => {
    const { t, userToken } = await setup();
    const plain = await registerClient(t.server);
    expect(json(await exchange(t, plain, { subject_token: userToken, audience: 'svc' })).error).toBe(
      'unauthorized_client',
    );
  });
});

describe('token exchange policy per client: the host names the audiences', () => {
  it('a client provisioned without tokenExchangeAudiences is unauthorized_client', async () => {
    const { t, userToken } = await setup();
    const bare = await provisionClient(t.server, { grantTypes: [TOKEN_EXCHANGE_GRANT] });
    const body = json(await exchange(t, bare, { subject_token: userToken, audience: 'svc' }));
    expect(body.error).toBe('unauthorized_client');
    expect(body.error_description).toMatch(/tokenExchangeAudiences/);
  });

  it('an audience not on the client’s list is invalid_target; one on it is issued', async () => {
    const { t, userToken } = await setup();
    const narrow = await provisionClient(t.server, {
      grantTypes: [TOKEN_EXCHANGE_GRANT],
      tokenExchangeAudiences: ['https://files.example'],
    });
    expect(json(await exchange(t, narrow, { subject_token: userToken, audience: 'svc' })).error).toBe(
      'invalid_target',
    );
    // Exact match only: a longer URL under a listed one is another audience.
    expect(
      json(await exchange(t, narrow, { subject_token: userToken, resource: 'https://files.example/api' }))
        .error,
    ).toBe('invalid_target');
    const ok = await exchange(t, narrow, { subject_token: userToken, audience: 'https://files.example' });
    expect(ok.status).toBe(200);
    expect(decodePayload(String(json(ok).access_token)).aud).toBe('https://files.example');
  });

  it('every audience of a multi-audience request must be on the list', async () => {
    const { t, userToken } = await setup();
    const narrow = await provisionClient(t.server, {
      grantTypes: [TOKEN_EXCHANGE_GRANT],
      tokenExchangeAudiences: ['svc'],
    });
    const body = json(
      await t.server.token(
        postForm(
          '/tenant/demo/token',
          `grant_type=${encodeURIComponent(TOKEN_EXCHANGE_GRANT)}&subject_token_type=${encodeURIComponent(ACCESS_TOKEN_TYPE)}&subject_token=${userToken}&audience=svc&audience=other`,
          basic(narrow.client_id, String(narrow.client_secret)),
        ),
        'demo',
      ),
    );
    expect(body.error).toBe('invalid_target');
  });
});

describe('token exchange refuses at issue time what verifiers refuse at use: act chain depth', () => {
  it(`issues chains up to ${MAX_ACTOR_NESTING + 1} actors and refuses the next exchange`, async () => {
    const { t, userToken, servers } = await setup();
    const server = servers[0] as Party;
    let token = userToken;
    for (let depth = 1; depth <= MAX_ACTOR_NESTING + 1; depth++) {
      const result = await exchange(t, server, { subject_token: token, audience: 'svc' });
      expect(result.status, `depth ${depth}`).toBe(200);
      token = String(json(result).access_token);
    }
    // The deepest issued token is still one the verifier accepts (introspection verifies it).
    expect((await introspect(t, server, token)).active).toBe(true);
    const refused = json(await exchange(t, server, { subject_token: token, audience: 'svc' }));
    expect(refused.error).toBe('invalid_request');
    expect(refused.error_description).toMatch(/delegation chain/);
  });
});

describe('RFC 8693 §4.4: an actor token must belong to the exchanging client, or name it in may_act', () => {
  async function clientCredentialsToken(t: TestServer, party: Party): Promise<string> {
    const result = await t.server.token(
      postForm(
        '/tenant/demo/token',
        { grant_type: 'client_credentials' },
        basic(party.client_id, String(party.client_secret)),
      ),
      'demo',
    );
    return String(json(result).access_token);
  }

  /** An access token of this tenant with the given claims, signed with its key (as the host could mint). */
  async function mintedToken(t: TestServer, claims: Record<string, unknown>): Promise<string> {
    const config = t.tenant.signingKeys[0] as { kid: string; alg: string; privateKey: JWK };
    const now = Math.floor(t.clock.now() / 1000);
    return new SignJWT({
      iss: ISSUER,
      aud: RESOURCE,
      jti: `minted-${now}`,
      iat: now,
      exp: now + 300,
      ...claims,
    })
      .setProtectedHeader({ alg: config.alg, kid: config.kid, typ: 'at+jwt' })
      .sign(await importJWK(config.privateKey, config.alg));
  }

  it('refuses a user token issued to another client as actor_token: its user never authorized the caller', async () => {
    const { t, userToken, servers } = await setup();
    const first = servers[0] as Party;
    const refused = await exchange(t, first, {
      subject_token: userToken,
      actor_token: userToken,
      actor_token_type: ACCESS_TOKEN_TYPE,
      audience: 'svc',
    });
    expect(refused.status).toBe(400);
    expect(json(refused)).toMatchObject({ error: 'invalid_request' });
    expect(String(json(refused).error_description)).toMatch(/actor_token: it was not issued to this client/);
  });

  it("refuses another client's own token as actor_token", async () => {
    const { t, userToken, servers } = await setup();
    const other = await provisionClient(t.server, { grantTypes: ['client_credentials'], scope: 'agent' });
    const refused = await exchange(t, servers[0] as Party, {
      subject_token: userToken,
      actor_token: await clientCredentialsToken(t, other),
      actor_token_type: ACCESS_TOKEN_TYPE,
      audience: 'svc',
    });
    expect(json(refused).error).toBe('invalid_request');
  });

  it('accepts a token of another client whose may_act names the caller, by client_id or client subject', async () => {
    const { t, userToken, servers } = await setup();
    const first = servers[0] as Party;
    for (const mayAct of [{ client_id: first.client_id }, { sub: `client:${first.client_id}` }]) {
      const actorToken = await mintedToken(t, { sub: 'user-3', client_id: 'elsewhere', may_act: mayAct });
      const result = await exchange(t, first, {
        subject_token: userToken,
        actor_token: actorToken,
        actor_token_type: ACCESS_TOKEN_TYPE,
        audience: 'svc',
      });
      expect(result.status, result.body).toBe(200);
      expect(decodePayload(String(json(result).access_token)).act).toMatchObject({ sub: 'user-3' });
    }
    for (const mayAct of [{ client_id: 'someone-else' }, { sub: 'user-1' }, 'not-an-object']) {
      const actorToken = await mintedToken(t, { sub: 'user-3', client_id: 'elsewhere', may_act: mayAct });
      const refused = await exchange(t, first, {
        subject_token: userToken,
        actor_token: actorToken,
        actor_token_type: ACCESS_TOKEN_TYPE,
        audience: 'svc',
      });
      expect(json(refused).error, JSON.stringify(mayAct)).toBe('invalid_request');
    }
  });
});

describe('a token exchanged from a grant lives and ends with that grant', () => {
  it('the exchanged token carries the subject token’s grant_id', async () => {
    const { t, userToken, servers } = await setup();
    const [first] = servers as [Party];
    const body = json(await exchange(t, first, { subject_token: userToken, audience: 'svc' }));
    expect(decodePayload(String(body.access_token)).grant_id).toBe(decodePayload(userToken).grant_id);
  });

  it('revoking the grant makes the exchanged token inactive and refuses further exchanges of the subject token', async () => {
    const { t, userToken, servers } = await setup();
    const [first] = servers as [Party];
    const exchanged = String(
      json(await exchange(t, first, { subject_token: userToken, audience: 'svc' })).access_token,
    );
    expect(await introspect(t, first, exchanged)).toMatchObject({ active: true });
    await t.server.grants.revoke('demo', String(decodePayload(userToken).grant_id));
    expect(await introspect(t, first, exchanged)).toEqual({ active: false });
    const again = await exchange(t, first, { subject_token: userToken, audience: 'svc' });
    expect(json(again)).toMatchObject({ error: 'invalid_request' });
  });

  it('a blocked exchanging client gets invalid_grant', async () => {
    const { t, userToken, servers } = await setup();
    const [first] = servers as [Party];
    await t.server.clients.block('demo', first.client_id);
    const result = await exchange(t, first, { subject_token: userToken, audience: 'svc' });
    expect(json(result)).toMatchObject({ error: 'invalid_grant' });
  });
});
