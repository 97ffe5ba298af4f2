import { StorageUnavailableError } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import type { UserClaimsHook } from '../../src/index.js';
import {
  basic,
  createTestServer,
  decodePayload,
  exchangeCode,
  get,
  ISSUER,
  json,
  obtainCode,
  postForm,
  provisionClient,
  registerClient,
  USER,
} from '../helpers.js';

const ADA = {
  name: 'Ada Lovelace',
  given_name: 'Ada',
  family_name: 'Lovelace',
  preferred_username: 'ada',
  picture: 'https://img.example/ada.png',
  email: 'ada@example.com',
  email_verified: true,
  // Not a claim any scope releases: must never leave the server.
  role: 'admin',
  sub: 'someone-else',
};

async function setup(options: { scope?: string; userClaims?: UserClaimsHook | null } = {}) {
  const calls: Array<{ tenant: string; userId: string; scopes: readonly string[] }> = [];
  const hook: UserClaimsHook = (tenant, userId, scopes) => {
    calls.push({ tenant, userId, scopes });
    return userId === USER ? ADA : undefined;
  };
  const userClaims = options.userClaims === null ? undefined : (options.userClaims ?? hook);
  const t = await createTestServer({ options: userClaims ? { userClaims } : {} });
  const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
  const { code, verifier } = await obtainCode(t, client.client_id, {
    scope: options.scope ?? 'openid profile email mcp:tools',
  });
  const tokens = json(await exchangeCode(t, client, code, verifier));
  const userinfo = (authorization?: string, method: 'GET' | 'POST' = 'GET') => {
    const headers = authorization === undefined ? {} : { authorization };
    const request =
      method === 'GET'
        ? { ...get('/tenant/demo/userinfo'), headers }
        : postForm('/tenant/demo/userinfo', {}, headers);
    return t.server.userinfo(request, 'demo');
  };
  return { t, client, tokens, access: String(tokens.access_token), userinfo, calls };
}

describe('userinfo answers sub and the claims the granted scopes cover (OIDC Core §5.3, §5.4)', () => {
  it('answers sub, the profile and the email claims for openid profile email, with no-store', async () => {
    const { access, userinfo, calls } = await setup();
    const result = await userinfo(`Bearer ${access}`);
    expect(result.status).toBe(200);
    expect(result.headers['content-type']).toMatch(/^application\/json/);
    expect(result.headers['cache-control']).toBe('no-store');
    expect(json(result)).toEqual({
      sub: USER,
      name: 'Ada Lovelace',
      given_name: 'Ada',
      family_name: 'Lovelace',
      preferred_username: 'ada',
      picture: 'https://img.example/ada.png',
      email: 'ada@example.com',
      email_verified: true,
    });
    expect(calls.at(-1)).toEqual({
      tenant: 'demo',
      userId: USER,
      scopes: ['email', 'mcp:tools', 'openid', 'profile'],
    });
  });

  it('releases only the email claims when profile was not granted', async () => {
    const { access, userinfo } = await setup({ scope: 'openid email mcp:tools' });
    expect(json(await userinfo(`Bearer ${access}`))).toEqual({
      sub: USER,
      email: 'ada@example.com',
      email_verified: true,
    });
  });

  it('answers sub alone for openid only, without asking the host', async () => {
    const { access, userinfo, calls } = await setup({ scope: 'openid mcp:tools' });
    const before = calls.length;
    expect(json(await userinfo(`Bearer ${access}`))).toEqual({ sub: USER });
    expect(calls.length).toBe(before);
  });

  it('answers sub alone without a userClaims hook', async () => {
    const { access, userinfo } = await setup({ userClaims: null });
    expect(json(await userinfo(`Bearer ${access}`))).toEqual({ sub: USER });
  });

  it('never lets the hook replace sub nor release a claim outside the scope table', async () => {
    const { access, userinfo } = await setup();
    const body = json(await userinfo(`Bearer ${access}`));
    expect(body.sub).toBe(USER);
    expect(body).not.toHaveProperty('role');
  });

  it('accepts the token on POST as on GET', async () => {
    const { access, userinfo } = await setup();
    const result = await userinfo(`Bearer ${access}`, 'POST');
    expect(result.status).toBe(200);
    expect(json(result).email).toBe('ada@example.com');
  });

  it('takes an async hook', async () => {
    const { access, userinfo } = await setup({ userClaims: async () => ({ name: 'Async Ada' }) });
    expect(json(await userinfo(`Bearer ${access}`))).toEqual({ sub: USER, name: 'Async Ada' });
  });

  it('answers 503 with Retry-After when the hook reports a storage outage', async () => {
    const { access, userinfo } = await setup({
      userClaims: (_tenant, _user, scopes) => {
        // The id_token is issued before this hook starts failing: only userinfo sees the outage.
        if (scopes.length > 0 && outage.on) throw new StorageUnavailableError('users');
        return {};
      },
    });
    outage.on = true;
    const result = await userinfo(`Bearer ${access}`);
    outage.on = false;
    expect(result.status).toBe(503);
    expect(result.headers['retry-after']).toBeDefined();
  });
});
const outage = { on: false };

describe('userinfo refuses with RFC 6750 challenges', () => {
  it('a request without a token gets 401 and a challenge without an error code', async () => {
    const { userinfo } = await setup();
    const result = await userinfo();
    expect(result.status).toBe(401);
    expect(result.headers['www-authenticate']).toBe('Bearer realm="demo"');
  });

  it('a malformed or unknown token gets 401 invalid_token', async () => {
    const { userinfo } = await setup();
    for (const header of ['Bearer a b', 'Bearer not-a-jwt']) {
      const result = await userinfo(header);
      expect(result.status).toBe(401);
      expect(result.headers['www-authenticate']).toMatch(/^Bearer realm="demo", error="invalid_token"/);
    }
  });

  // RFC 6750 §3.1, as the resource's own challenges: another scheme is no Bearer credentials at all.
  it('another authorization scheme (Basic, DPoP) gets 401 with no error code', async () => {
    const { userinfo } = await setup();
    for (const header of ['Basic abc', 'DPoP abc']) {
      const result = await userinfo(header);
      expect(result.status).toBe(401);
      expect(result.headers['www-authenticate']).toBe('Bearer realm="demo"');
    }
  });

  it('a revoked token gets 401 invalid_token', async () => {
    const { t, client, access, userinfo } = await setup();
    await t.server.revoke(
      postForm('/tenant/demo/revoke', { token: access, client_id: client.client_id }),
      'demo',
    );
    const result = await userinfo(`Bearer ${access}`);
    expect(result.status).toBe(401);
    expect(json(result).error).toBe('invalid_token');
  });

  it('an expired token gets 401 invalid_token', async () => {
    const { t, access, userinfo } = await setup();
    t.clock.advance(2 * 3600 * 1000);
    expect((await userinfo(`Bearer ${access}`)).status).toBe(401);
  });

  it('a token without openid gets 403 insufficient_scope naming openid', async () => {
    const { userinfo, access } = await setup({ scope: 'profile email mcp:tools' });
    const result = await userinfo(`Bearer ${access}`);
    expect(result.status).toBe(403);
    expect(result.headers['www-authenticate']).toContain('error="insufficient_scope"');
    expect(result.headers['www-authenticate']).toContain('scope="openid"');
  });

  it('a token a client obtained for itself names no user: 401 invalid_token, the hook is not asked', async () => {
    const { t, userinfo, calls } = await setup();
    const machine = await provisionClient(t.server, {
      grantTypes: ['client_credentials'],
      tokenEndpointAuthMethod: 'client_secret_basic',
      scope: 'openid profile',
    });
    const issued = json(
      await t.server.token(
        postForm(
          '/tenant/demo/token',
          { grant_type: 'client_credentials', scope: 'openid profile' },
          basic(machine.client_id, String(machine.client_secret)),
        ),
        'demo',
      ),
    );
    expect(issued.scope).toBe('openid profile');
    const before = calls.length;
    const result = await userinfo(`Bearer ${String(issued.access_token)}`);
    expect(result.status).toBe(401);
    expect(json(result).error).toBe('invalid_token');
    expect(calls.length).toBe(before);
  });

  it('a token signed with another key set is refused', async () => {
    const other = await setup();
    const { userinfo } = await setup();
    // Same issuer URL but another key set: the signature does not verify.
    expect((await userinfo(`Bearer ${other.access}`)).status).toBe(401);
  });
});

describe('the id_token carries the same released claims', () => {
  it('adds the profile and email claims the scope covers, never over the registered claims', async () => {
    const { tokens, client } = await setup();
    const payload = decodePayload(String(tokens.id_token));
    expect(payload).toMatchObject({
      iss: ISSUER,
      sub: USER,
      aud: client.client_id,
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      email_verified: true,
    });
    expect(payload).not.toHaveProperty('role');
  });

  it('adds nothing for openid alone', async () => {
    const { tokens } = await setup({ scope: 'openid mcp:tools' });
    expect(decodePayload(String(tokens.id_token))).not.toHaveProperty('name');
  });
});

describe('discovery advertises the userinfo endpoint', () => {
  it('in the OAuth metadata and the OpenID configuration', async () => {
    const { t } = await setup();
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const response = await t.server.fetch(new Request(`https://auth.example/tenant/demo${path}`));
      const body = (await response.json()) as Record<string, unknown>;
      expect(body.userinfo_endpoint).toBe(`${ISSUER}/userinfo`);
      expect(body.claims_supported).toContain('email');
    }
  });

  it('is routed by fetch for GET and POST, 405 for another method', async () => {
    const { t, access } = await setup();
    const url = `${ISSUER}/userinfo`;
    const authorization = `Bearer ${access}`;
    expect((await t.server.fetch(new Request(url, { headers: { authorization } }))).status).toBe(200);
    expect(
      (await t.server.fetch(new Request(url, { method: 'POST', headers: { authorization } }))).status,
    ).toBe(200);
    expect(
      (await t.server.fetch(new Request(url, { method: 'PUT', headers: { authorization } }))).status,
    ).toBe(405);
  });

  it('answers a browser preflight allowing GET, POST and the Authorization header, and the answer is readable cross-origin', async () => {
    const { t, access } = await setup();
    const url = `${ISSUER}/userinfo`;
    const origin = 'https://spa.example';
    const preflight = await t.server.fetch(
      new Request(url, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'authorization',
        },
      }),
    );
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toMatch(/GET.*POST/);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization');
    const answer = await t.server.fetch(
      new Request(url, { headers: { origin, authorization: `Bearer ${access}` } }),
    );
    expect(answer.headers.get('access-control-allow-origin')).toMatch(/^(\*|https:\/\/spa\.example)$/);
  });

  it('claims_supported is sub alone without a userClaims hook', async () => {
    const { t } = await setup({ userClaims: null });
    const response = await t.server.fetch(new Request(`${ISSUER}/.well-known/openid-configuration`));
    expect(((await response.json()) as Record<string, unknown>).claims_supported).toEqual(['sub']);
  });
});

describe('the userClaims option is validated at creation', () => {
  it('refuses a value that is not a function', async () => {
    await expect(
      createTestServer({ options: { userClaims: 'x' as unknown as UserClaimsHook } }),
    ).rejects.toThrow(/userClaims must be a function/);
  });
});
