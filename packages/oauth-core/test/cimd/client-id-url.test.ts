import { describe, expect, it } from 'vitest';
import { checkClientIdUrl, isHostAllowed, isMetadataDocumentClientId } from '../../src/cimd/client-id-url.js';

describe('isMetadataDocumentClientId: a client_id with a URL scheme names a metadata document', () => {
  it.each([
    ['https://app.example/client.json', true],
    ['HTTPS://app.example/client.json', true],
    ['http://app.example/client.json', true],
    ['c_8Jq2mJx0', false],
    ['urn:example:client', false],
    ['', false],
  ])('%s → %s', (clientId, expected) => {
    expect(isMetadataDocumentClientId(clientId)).toBe(expected);
  });
});

describe('checkClientIdUrl: https, a path, no userinfo, no fragment, no dot segments, canonical', () => {
  it('returns the parsed URL for a valid client id', () => {
    const check = checkClientIdUrl('https://app.example/oauth/client.json?v=1');
    expect(check.ok && check.url.hostname).toBe('app.example');
  });

  it.each([
    'https://app.example/a/..',
    'https://app.example/a/.%2E/b',
    'https://app.example/%2e/b',
    'https://:pw@app.example/a',
    'https://app.example/a?b#',
    'https://app.example/a b',
  ])('refuses %s', (clientId) => {
    expect(checkClientIdUrl(clientId).ok).toBe(false);
  });
});

describe('isHostAllowed: exact host or a subdomain of an allowlist entry', () => {
  it.each([
    ['app.example', ['app.example'], true],
    ['eu.app.example', ['app.example'], true],
    ['a.b.app.example', ['*.app.example'], true],
    ['app.example', ['.app.example'], true],
    ['evilapp.example', ['app.example'], false],
    ['app.example.evil', ['app.example'], false],
    ['example', ['app.example'], false],
    ['anything.test', ['*'], true],
    ['app.example', [], false],
    ['app.example', ['', '  '], false],
    ['app.example', ['APP.EXAMPLE.'], true],
  ])('%s with %o → %s', (host, allowlist, expected) => {
    expect(isHostAllowed(host, allowlist)).toBe(expected);
  });
});
