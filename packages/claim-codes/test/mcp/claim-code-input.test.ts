import { describe, expect, it } from 'vitest';
import { claimCodeFromHeaders, claimCodeFromUrl } from '../../src/mcp/claim-code-input.js';

describe('Mcp-Claim-Code header', () => {
  it('reads the lower-cased header as Node and the SDK present it', () => {
    expect(claimCodeFromHeaders({ 'mcp-claim-code': 'ABC-DEF' })).toBe('ABC-DEF');
  });

  it('treats a missing or blank header as no code', () => {
    expect(claimCodeFromHeaders({})).toBeUndefined();
    expect(claimCodeFromHeaders(undefined)).toBeUndefined();
    expect(claimCodeFromHeaders({ 'mcp-claim-code': '  ' })).toBeUndefined();
  });

  it('passes a repeated header on joined, so it cannot validate', () => {
    expect(claimCodeFromHeaders({ 'mcp-claim-code': ['ABC-DEF', 'GHJ-KMN'] })).toBe('ABC-DEF, GHJ-KMN');
  });
});

describe('?claim= query parameter', () => {
  it('reads it from a URL or a request target', () => {
    expect(claimCodeFromUrl(new URL('http://127.0.0.1/mcp?claim=ABC-DEF'))).toBe('ABC-DEF');
    expect(claimCodeFromUrl('/mcp?x=1&claim=abc-def')).toBe('abc-def');
  });

  it('answers undefined without one', () => {
    expect(claimCodeFromUrl('/mcp')).toBeUndefined();
    expect(claimCodeFromUrl('/mcp?claim=')).toBeUndefined();
    expect(claimCodeFromUrl(undefined)).toBeUndefined();
  });
});
