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
