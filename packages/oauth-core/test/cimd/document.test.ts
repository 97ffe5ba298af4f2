import { describe, expect, it } from 'vitest';
import { checkMetadataDocument } from '../../src/cimd/document.js';

const CLIENT_ID = 'https://app.example/client.json';

describe('checkMetadataDocument: the validated document is frozen and holds only known members', () => {
  it('a caller cannot change the (cached) document', () => {
    const check = checkMetadataDocument(
      {
        client_id: CLIENT_ID,
        client_name: ' Example ',
        redirect_uris: ['https://app.example/cb'],
        grant_types: ['authorization_code'],
      },
      CLIENT_ID,
    );
    if (!check.ok) throw new Error(check.description);
    expect(check.document.client_name).toBe('Example');
    expect(Object.isFrozen(check.document)).toBe(true);
    expect(Object.isFrozen(check.document.redirect_uris)).toBe(true);
    expect(Object.isFrozen(check.document.grant_types)).toBe(true);
    expect(() => (check.document.redirect_uris as string[]).push('https://evil.example/cb')).toThrow(
      TypeError,
    );
  });

  it('checks client_id before anything else, so a copied document names its real owner in the error', () => {
    expect(checkMetadataDocument({ client_id: 'https://other.example/c.json' }, CLIENT_ID)).toMatchObject({
      ok: false,
      error: 'client_id_mismatch',
    });
  });
});

describe('checkMetadataDocument: redirect URIs follow the same rules as dynamic registration', () => {
  it.each(['javascript:alert(1)', 'http://app.example/cb', 'https://user:pass@app.example/cb', 'myapp:/cb'])(
    'refuses %s',
    (uri) => {
      const check = checkMetadataDocument(
        { client_id: CLIENT_ID, client_name: 'x', redirect_uris: [uri] },
        CLIENT_ID,
      );
      expect(check.ok).toBe(false);
    },
  );

  it.each(['https://app.example/cb', 'http://127.0.0.1:8080/cb', 'com.example.app:/cb'])(
    'accepts %s',
    (uri) => {
      expect(
        checkMetadataDocument({ client_id: CLIENT_ID, client_name: 'x', redirect_uris: [uri] }, CLIENT_ID).ok,
      ).toBe(true);
    },
  );
});

describe('checkMetadataDocument: private_key_jwt members and application_type', () => {
  const base = { client_id: CLIENT_ID, client_name: 'Example', redirect_uris: ['https://app.example/cb'] };

  it("keeps ChatGPT's shape: several methods, a signing alg and a jwks_uri", () => {
    const check = checkMetadataDocument(
      {
        ...base,
        token_endpoint_auth_methods_supported: ['none', 'private_key_jwt'],
        token_endpoint_auth_signing_alg: 'RS256',
        jwks_uri: 'https://app.example/.well-known/jwks.json',
      },
      CLIENT_ID,
    );
    if (!check.ok) throw new Error(check.description);
    expect(check.document).toMatchObject({
      token_endpoint_auth_methods_supported: ['none', 'private_key_jwt'],
      token_endpoint_auth_signing_alg: 'RS256',
      jwks_uri: 'https://app.example/.well-known/jwks.json',
    });
    expect(Object.isFrozen(check.document.token_endpoint_auth_methods_supported)).toBe(true);
  });

  it.each([
    ['an http jwks_uri', { jwks_uri: 'http://app.example/jwks.json' }, /jwks_uri must be an https URL/],
    [
      'both jwks_uri and jwks',
      { jwks_uri: 'https://app.example/jwks.json', jwks: { keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'x' }] } },
      /not both/,
    ],
    [
      'a private key in jwks',
      { jwks: { keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'x', d: 'd' }] } },
      /private key/,
    ],
    ['an unknown application_type', { application_type: 'desktop' }, /application_type/],
    [
      'a web client with a loopback redirect',
      { application_type: 'web', redirect_uris: ['http://127.0.0.1/cb'] },
      /https for a web client/,
    ],
    ['a dotless private-use scheme without native', { redirect_uris: ['cursor://cb'] }, /without a dot/],
  ])('refuses %s', (_name, extra, message) => {
    const check = checkMetadataDocument({ ...base, ...extra }, CLIENT_ID);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.description).toMatch(message);
  });

  it('a native document may use loopback http and dotless private-use schemes', () => {
    const check = checkMetadataDocument(
      {
        ...base,
        application_type: 'native',
        redirect_uris: ['http://127.0.0.1/cb', 'cursor://anysphere.cursor-mcp/oauth/callback'],
      },
      CLIENT_ID,
    );
    expect(check.ok).toBe(true);
  });
});

describe('checkMetadataDocument: no member holds a control character (as at POST /register)', () => {
  it('a NUL in client_name is refused as invalid_json before any store sees it', () => {
    const check = checkMetadataDocument(
      { client_id: CLIENT_ID, client_name: 'a\u0000b', redirect_uris: ['https://app.example/cb'] },
      CLIENT_ID,
    );
    expect(check).toMatchObject({ ok: false, error: 'invalid_json' });
    if (!check.ok) expect(check.description).toContain('control character');
  });

  it('an escape sequence in a redirect URI is refused too', () => {
    expect(
      checkMetadataDocument(
        { client_id: CLIENT_ID, client_name: 'App', redirect_uris: ['https://app.example/cb\u001b[31m'] },
        CLIENT_ID,
      ),
    ).toMatchObject({ ok: false, error: 'invalid_json' });
  });
});
