import { createManualClock } from '@keyhold/core';
import { expectInvalidOptions } from '@keyhold/core/testing';
import { describe, expect, it } from 'vitest';
import { createMcpEndpoint, KeyholdMcpError, type McpEndpointOptions } from '../src/index.js';
import { toMcpNodeListener } from '../src/node.js';
import { createMcpRequestGate } from '../src/sdk-v1.js';
import { fakeVerifier, SECRET } from './fixtures.js';

const clock = createManualClock(Date.parse('2026-01-01T00:00:00Z'));
const authentication = {
  verifier: fakeVerifier(clock),
  resourceMetadataUrl: 'http://127.0.0.1:8787/.well-known/oauth-protected-resource/mcp',
};
const valid: McpEndpointOptions = {
  publicUrl: 'http://127.0.0.1:8787/mcp',
  serverInfo: { name: 'options-test', version: '1.0.0' },
  toolModules: [],
  authentication,
  requestStateSecret: SECRET,
  clock,
};

describe('createMcpEndpoint validates its options once, at creation', () => {
  it('accepts valid options', () => {
    expect(createMcpEndpoint(valid).path).toBe('/mcp');
  });

  it.each([
    ['a publicUrl that is not absolute', { publicUrl: '/mcp' }],
    ['a publicUrl with a fragment', { publicUrl: 'http://127.0.0.1:8787/mcp#x' }],
    ['a requestStateSecret shorter than 32 bytes', { requestStateSecret: 'short' }],
    [
      'resourceMetadataUrl that is not a URL',
      { authentication: { ...authentication, resourceMetadataUrl: 'x' } },
    ],
    ['a maxRequestBodyBytes of 0', { maxRequestBodyBytes: 0 }],
    ['a requestStateTtlSeconds of 1.5', { requestStateTtlSeconds: 1.5 }],
    ['a legacyCapabilityTtlSeconds of -1', { legacyCapabilityTtlSeconds: -1 }],
    [
      'allowedHosts entry that is not a host (it used to be skipped, refusing that host)',
      { allowedHosts: ['a b'] },
    ],
    ['an allowedOrigins entry that is not an origin', { allowedOrigins: ['not an origin'] }],
  ])('refuses %s', (_, override) => {
    expectInvalidOptions(KeyholdMcpError, () => createMcpEndpoint({ ...valid, ...override }));
  });

  // Each of these is only used while a request is served; a mistake used to surface on that request.
  it.each([
    ['broker', 'a broker without requestToken, before any tool asks for a token', { broker: {} }],
    [
      'serverInfo',
      'serverInfo without a name, before the first request builds a server',
      { serverInfo: { version: '1' } },
    ],
    ['onceStore', 'an onceStore without consume, before the first retry', { onceStore: {} }],
    [
      'claimCodes',
      'claimCodes without claims.validate, before the first code is presented',
      { claimCodes: { claims: {} } },
    ],
  ])('names the %s option: refuses %s', (option, _, override) => {
    const error = expectInvalidOptions(KeyholdMcpError, () =>
      createMcpEndpoint({ ...valid, ...override } as never),
    );
    expect(error.message).toContain(option);
  });
});

describe('createMcpRequestGate validates its options once, at creation', () => {
  it('refuses a publicUrl that is not absolute', () => {
    expectInvalidOptions(KeyholdMcpError, () => createMcpRequestGate({ publicUrl: 'mcp', authentication }));
  });

  it('refuses authentication without a verifier, before the first request', () => {
    expectInvalidOptions(KeyholdMcpError, () =>
      createMcpRequestGate({
        publicUrl: 'http://127.0.0.1:8787/mcp',
        authentication: { resourceMetadataUrl: authentication.resourceMetadataUrl } as never,
      }),
    );
  });

  it('refuses an allowedHosts entry that is not a host', () => {
    expectInvalidOptions(KeyholdMcpError, () =>
      createMcpRequestGate({ publicUrl: 'http://127.0.0.1:8787/mcp', authentication, allowedHosts: ['a b'] }),
    );
  });
});

describe('toMcpNodeListener validates its options once, at creation', () => {
  it.each([0, -1, 1.5])('refuses maxRequestBodyBytes %s', (maxRequestBodyBytes) => {
    expectInvalidOptions(KeyholdMcpError, () =>
      toMcpNodeListener(createMcpEndpoint(valid), { maxRequestBodyBytes }),
    );
  });
});
