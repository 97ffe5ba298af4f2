import { describe, expect, it } from 'vitest';
import {
  applicationTypeProblem,
  inferApplicationType,
  redirectUriMatches,
  redirectUriProblem,
  withQuery,
} from '../src/redirect-uri.js';

describe('redirect_uri matching: exact, except loopback ports (RFC 8252 §7.3)', () => {
  it.each([
    ['https://app.example/cb', 'https://app.example/cb', true],
    ['https://app.example/cb/', 'https://app.example/cb', false],
    ['https://app.example/CB', 'https://app.example/cb', false],
    ['https://app.example:8443/cb', 'https://app.example/cb', false],
    ['http://127.0.0.1:1234/cb', 'http://127.0.0.1/cb', true],
    ['http://127.0.0.1:1234/cb', 'http://127.0.0.1:5555/cb', true],
    ['http://[::1]:1234/cb', 'http://[::1]/cb', true],
    ['http://localhost:1234/cb', 'http://localhost/cb', true],
    ['http://localhost:1234/cb', 'http://127.0.0.1/cb', false],
    ['http://127.0.0.1:1234/cb?x=1', 'http://127.0.0.1/cb', false],
    ['http://127.0.0.1:1234/other', 'http://127.0.0.1/cb', false],
    ['https://127.0.0.1:1234/cb', 'https://127.0.0.1/cb', false],
    ['http://user@127.0.0.1:1234/cb', 'http://127.0.0.1/cb', false],
  ])('%s against %s → %s', (presented, registered, expected) => {
    expect(redirectUriMatches(presented, registered)).toBe(expected);
  });
});

describe('registrable redirect URIs', () => {
  it('accepts https, loopback http and reverse-domain private-use schemes', () => {
    for (const uri of [
      'https://a.example/cb',
      'http://127.0.0.1/cb',
      'http://localhost:3000/cb',
      'com.example.app:/cb',
    ]) {
      expect(redirectUriProblem(uri)).toBeUndefined();
    }
  });

  it('refuses the rest with a reason', () => {
    expect(redirectUriProblem('http://a.example/cb')).toMatch(/non-loopback/);
    expect(redirectUriProblem('https://a.example/cb#f')).toMatch(/fragment/);
    expect(redirectUriProblem('https://u:p@a.example/cb')).toMatch(/user information/);
    expect(redirectUriProblem('data:text/html,x')).toMatch(/forbidden/);
    expect(redirectUriProblem(`https://a.example/${'x'.repeat(2100)}`)).toMatch(/longer/);
  });

  it('appends response parameters and keeps the query the client registered', () => {
    expect(withQuery('https://a.example/cb?keep=1', { code: 'c', state: undefined })).toBe(
      'https://a.example/cb?keep=1&code=c',
    );
  });
});

describe('application_type and redirect URIs (OIDC Registration §2, RFC 8252)', () => {
  it.each([
    [['https://app.example/cb'], 'web'],
    [['https://app.example/cb', 'http://127.0.0.1/cb'], 'native'],
    [['http://[::1]:8080/cb'], 'native'],
    [['http://localhost/cb'], 'native'],
    [['com.example.app:/cb'], 'native'],
    [[], 'web'],
  ])('%j without a stated type is %s', (uris, expected) => {
    expect(inferApplicationType(uris)).toBe(expected);
  });

  it('web allows https only; native allows https, loopback http and private-use schemes', () => {
    expect(applicationTypeProblem('https://app.example/cb', 'web')).toBeUndefined();
    expect(applicationTypeProblem('http://127.0.0.1/cb', 'web')).toMatch(/https for a web client/);
    expect(applicationTypeProblem('com.example.app:/cb', 'web')).toMatch(/https for a web client/);
    for (const uri of ['https://app.example/cb', 'http://127.0.0.1/cb', 'com.example.app:/cb']) {
      expect(applicationTypeProblem(uri, 'native')).toBeUndefined();
    }
  });

  it('a dotless private-use scheme needs a stated native type', () => {
    expect(redirectUriProblem('vscode://vscode.github-authentication/cb')).toMatch(/without a dot/);
    expect(redirectUriProblem('vscode://vscode.github-authentication/cb', 'web')).toMatch(/without a dot/);
    expect(redirectUriProblem('vscode://vscode.github-authentication/cb', 'native')).toBeUndefined();
    expect(redirectUriProblem('javascript:alert(1)', 'native')).toMatch(/forbidden scheme/);
  });
});
