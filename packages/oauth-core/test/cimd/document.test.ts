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
