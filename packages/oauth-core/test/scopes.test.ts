import { describe, expect, it } from 'vitest';
import { formatScope, parseScope, requestedScopes, scopeList } from '../src/scopes.js';

describe('scope strings (RFC 6749 §3.3)', () => {
  it('splits on spaces, collapses duplicates and refuses quotes and backslashes', () => {
    expect(parseScope('a  b a')).toEqual(['a', 'b']);
    expect(parseScope('a "b"')).toBeUndefined();
    expect(parseScope('a\\b')).toBeUndefined();
    expect(parseScope(undefined)).toEqual([]);
  });

  it('formats a scope set canonically', () => {
    expect(formatScope(['mcp', 'openid', 'mcp'])).toBe('mcp openid');
  });

  it('keeps requests within the tenant offer and the client registration', () => {
    expect(requestedScopes('a', ['a', 'b'], undefined)).toEqual(['a']);
    expect(requestedScopes('c', ['a', 'b'], undefined)).toEqual({
      error: 'a requested scope is not offered here',
    });
    expect(requestedScopes('b', undefined, ['a'])).toMatchObject({
      error: expect.stringMatching(/registered/),
    });
    expect(requestedScopes(undefined, undefined, ['a', 'b'])).toEqual(['a', 'b']);
  });

  it('an absent scope falls back to the pre-defined default (RFC 6749 §3.3), as far as the tenant offers it', () => {
    expect(requestedScopes(undefined, undefined, undefined, ['mcp:tools'])).toEqual(['mcp:tools']);
    expect(requestedScopes(undefined, ['openid'], undefined, ['mcp:tools'])).toEqual([]);
    expect(requestedScopes(undefined, undefined, ['a'], ['mcp:tools'])).toEqual(['a']);
    expect(requestedScopes('', undefined, undefined, ['mcp:tools'])).toEqual([]);
  });
});

describe('a stored scope string reads as a list of scopes (scopeList, every record reader)', () => {
  it('an absent or empty scope is no scope at all, never one empty scope', () => {
    expect(scopeList(undefined)).toEqual([]);
    expect(scopeList('')).toEqual([]);
    expect(scopeList('   ')).toEqual([]);
  });

  it('splits on spaces and never yields an empty token, whatever the spacing', () => {
    expect(scopeList('mcp:tools')).toEqual(['mcp:tools']);
    expect(scopeList(' a  b ')).toEqual(['a', 'b']);
  });
});
