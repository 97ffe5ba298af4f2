import { describe, expect, it } from 'vitest';
import {
  allowedHostsFor,
  createHostMatcher,
  isAllowedHost,
  isAllowedOrigin,
  isLoopbackHostname,
  loopbackHosts,
  normaliseAllowedHosts,
  originOf,
} from '../src/host-validation.js';

// Misuse by code throws CoreError ERR_INVALID_OPTIONS, as every Keyhold option check does.
const INVALID_OPTIONS = expect.objectContaining({ name: 'CoreError', code: 'ERR_INVALID_OPTIONS' });

describe('loopbackHosts: the names a loopback-bound server is reached under', () => {
  it('lists 127.0.0.1, localhost and [::1] with the port', () => {
    expect(loopbackHosts(8787)).toEqual(['127.0.0.1:8787', 'localhost:8787', '[::1]:8787']);
  });

  it('refuses a port that is not 1–65535 (port 0 is only known after binding)', () => {
    expect(() => loopbackHosts(0)).toThrow(INVALID_OPTIONS);
    expect(() => loopbackHosts(70000)).toThrow(INVALID_OPTIONS);
  });
});

describe('allowedHostsFor: the Host of a public URL or a hostname/port pair', () => {
  it('makes the default port of the scheme explicit', () => {
    expect(allowedHostsFor('https://Auth.Example.com/base')).toEqual(['auth.example.com:443']);
    expect(allowedHostsFor('http://app.example')).toEqual(['app.example:80']);
    expect(allowedHostsFor(new URL('http://127.0.0.1:8787/'))).toEqual(['127.0.0.1:8787']);
  });

  it('brackets IPv6 literals and keeps the port', () => {
    expect(allowedHostsFor({ hostname: '::1', port: 9000 })).toEqual(['[::1]:9000']);
    expect(allowedHostsFor({ hostname: 'App.Internal' })).toEqual(['app.internal']);
  });

  it('throws CoreError ERR_INVALID_OPTIONS for something that is not an http(s) URL or a host', () => {
    expect(() => allowedHostsFor('not a url')).toThrow(INVALID_OPTIONS);
    expect(() => allowedHostsFor('ftp://x.example')).toThrow(INVALID_OPTIONS);
    expect(() => allowedHostsFor({ hostname: 'a b' })).toThrow(INVALID_OPTIONS);
  });
});

describe('isAllowedHost: exact match of the Host header (DNS rebinding defence)', () => {
  const local = loopbackHosts(8787);

  it('accepts the loopback names with the bound port, case-insensitively', () => {
    expect(isAllowedHost('127.0.0.1:8787', local)).toBe(true);
    expect(isAllowedHost('LocalHost:8787', local)).toBe(true);
    expect(isAllowedHost('[::1]:8787', local)).toBe(true);
  });

  it('refuses a rebinding name that resolves to loopback, and another port', () => {
    expect(isAllowedHost('rebind.attacker.example:8787', local)).toBe(false);
    expect(isAllowedHost('127.0.0.1:8788', local)).toBe(false);
    expect(isAllowedHost('localhost', local)).toBe(false);
  });

  it('compares IPv6 literals in canonical form', () => {
    expect(isAllowedHost('[0:0:0:0:0:0:0:1]:8787', local)).toBe(true);
    expect(isAllowedHost('[::2]:8787', local)).toBe(false);
  });

  it('treats a Host without a port as the default port 80 or 443, and nothing else', () => {
    expect(isAllowedHost('auth.example.com', ['auth.example.com:443'])).toBe(true);
    expect(isAllowedHost('auth.example.com', ['auth.example.com:80'])).toBe(true);
    expect(isAllowedHost('auth.example.com:443', ['auth.example.com'])).toBe(true);
    expect(isAllowedHost('auth.example.com:8443', ['auth.example.com'])).toBe(false);
    expect(isAllowedHost('auth.example.com', ['auth.example.com:8443'])).toBe(false);
    expect(isAllowedHost('auth.example.com:80', ['auth.example.com:443'])).toBe(false);
  });

  it('ignores one trailing dot (the same name) but refuses empty labels and look-alikes', () => {
    expect(isAllowedHost('localhost.:8787', local)).toBe(true);
    expect(isAllowedHost('localhost..:8787', local)).toBe(false);
    expect(isAllowedHost('.localhost:8787', local)).toBe(false);
    expect(isAllowedHost('localhost.attacker.example:8787', local)).toBe(false);
    expect(isAllowedHost('auth.example.com.evil', ['auth.example.com'])).toBe(false);
  });

  it('refuses a missing, empty or malformed header', () => {
    for (const bad of [
      undefined,
      '',
      ' ',
      'user@127.0.0.1:8787',
      '127.0.0.1:8787, evil.example',
      '127.0.0.1:8787/path',
      '127.0.0.1:99999',
      '127.0.0.1:0',
      '[::1',
      '127.0.0.1:',
      'a%2eb:8787',
    ]) {
      expect(isAllowedHost(bad, local), String(bad)).toBe(false);
    }
  });
});

describe('normaliseAllowedHosts: validated once, at configuration', () => {
  it('lower-cases and canonicalises, and names a bad entry', () => {
    expect(normaliseAllowedHosts(['Auth.Example.com', '[0:0::1]:8787'])).toEqual([
      'auth.example.com',
      '[::1]:8787',
    ]);
    expect(() => normaliseAllowedHosts(['ok.example', 'bad example'])).toThrow(/bad example/);
    expect(() => normaliseAllowedHosts(['user@bad.example'])).toThrow(INVALID_OPTIONS);
    expect(() => normaliseAllowedHosts(['ftp://bad.example'])).toThrow(INVALID_OPTIONS);
  });

  it('takes an http(s) URL as its host with the default port made explicit', () => {
    expect(normaliseAllowedHosts(['https://Auth.Example.com/base', 'http://127.0.0.1:8787'])).toEqual([
      'auth.example.com:443',
      '127.0.0.1:8787',
    ]);
    const matches = createHostMatcher(['https://auth.example.com']);
    expect(matches('auth.example.com')).toBe(true);
    expect(matches('auth.example.com:443')).toBe(true);
    expect(matches('auth.example.com:8443')).toBe(false);
    expect(matches('evil.example')).toBe(false);
  });
});

describe('isLoopbackHostname', () => {
  it('knows 127.0.0.0/8, ::1 and localhost, and not 0.0.0.0 or a LAN address', () => {
    for (const yes of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', 'LOCALHOST.', 'a.localhost']) {
      expect(isLoopbackHostname(yes), yes).toBe(true);
    }
    for (const no of ['0.0.0.0', '::', '192.168.1.2', 'example.com', 'localhost.example.com']) {
      expect(isLoopbackHostname(no), no).toBe(false);
    }
  });
});

describe('isAllowedOrigin: the Origin of a browser request', () => {
  const own = ['https://auth.example.com'];

  it('accepts the same origin, spelled with the default port or in another case', () => {
    expect(isAllowedOrigin('https://auth.example.com', own)).toBe(true);
    expect(isAllowedOrigin('https://AUTH.example.com:443', own)).toBe(true);
  });

  it('refuses another origin, scheme or port', () => {
    expect(isAllowedOrigin('https://evil.example', own)).toBe(false);
    expect(isAllowedOrigin('http://auth.example.com', own)).toBe(false);
    expect(isAllowedOrigin('https://auth.example.com:8443', own)).toBe(false);
  });

  it('refuses the opaque origin "null", an absent header and anything that is not a bare origin', () => {
    for (const bad of [
      'null',
      undefined,
      '',
      'https://auth.example.com/path',
      'https://auth.example.com, https://evil.example',
      'https://user@auth.example.com',
      'file://',
    ]) {
      expect(isAllowedOrigin(bad, own), String(bad)).toBe(false);
    }
  });

  it('compares allowed entries by their origin, so a base URL with a path works', () => {
    expect(isAllowedOrigin('http://127.0.0.1:8787', ['http://127.0.0.1:8787/tenant/demo'])).toBe(true);
  });

  it('originOf gives the serialised origin of an http(s) URL', () => {
    expect(originOf('https://Auth.Example.com:443/x')).toBe('https://auth.example.com');
    expect(originOf('mailto:a@b')).toBeUndefined();
    expect(originOf('nope')).toBeUndefined();
  });
});

describe('createHostMatcher: the allowed list parsed once, the same rules as isAllowedHost', () => {
  it('answers exactly as isAllowedHost for every header, and ignores malformed entries', () => {
    const allowed = [...loopbackHosts(8787), 'auth.example.com:443', 'not a host'];
    const matches = createHostMatcher(allowed);
    for (const header of [
      'LOCALHOST:8787',
      '[0:0::1]:8787',
      'auth.example.com',
      'rebind.attacker.example:8787',
      'not a host',
      '',
      undefined,
    ]) {
      expect(matches(header), String(header)).toBe(isAllowedHost(header, allowed));
    }
    expect(matches('localhost:8787')).toBe(true);
    expect(matches('not a host')).toBe(false);
  });
});
