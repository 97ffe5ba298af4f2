import { createManualClock } from '@keyhold/core';
import { expectInvalidOptions } from '@keyhold/internal/testing';
import { describe, expect, it } from 'vitest';
import { createMcpEndpoint, KeyholdMcpError, type McpEndpointOptions } from '../src/index.js';
import { createMcpRequestGate } from '../src/sdk-v1.js';
import { fakeBroker, SECRET, testAuthorizationServer, testResource } from './fixtures.js';

const clock = createManualClock(Date.parse('2026-01-01T00:00:00Z'));
const resource = testResource(clock, 'http://127.0.0.1:8787/mcp');
const valid: McpEndpointOptions = {
  resource,
  serverInfo: { name: 'options-test', version: '1.0.0' },
  toolModules: [],
  clock,
};

describe('createMcpEndpoint validates its options once, at creation', () => {
  it('accepts valid options', () => {
    const endpoint = createMcpEndpoint(valid);
    expect(endpoint.ownsPath('/mcp')).toBe(true);
    expect(endpoint.ownsPath('/.well-known/oauth-protected-resource/mcp')).toBe(true);
    expect(endpoint.ownsPath('/login')).toBe(false);
  });

  it.each([
    ['neither resource nor authorizationServer', { resource: undefined }],
    ['both resource and authorizationServer', { authorizationServer: testAuthorizationServer(clock) }],
    ['a resource that is not a ProtectedResource', { resource: { url: 'http://127.0.0.1:8787/mcp' } }],
    ['a requestStateSecret shorter than 32 bytes', { requestStateSecret: 'short' }],
    ['a broker without a requestStateSecret', { broker: fakeBroker() }],
    ['a maxRequestBodyBytes of 0', { maxRequestBodyBytes: 0 }],
    ['a requestStateTtlSeconds of 1.5', { requestStateTtlSeconds: 1.5 }],
    ['a legacyCapabilityTtlSeconds of -1', { legacyCapabilityTtlSeconds: -1 }],
    [
      'allowedHosts entry that is not a host (it used to be skipped, refusing that host)',
      { allowedHosts: ['a b'] },
    ],
    ['an allowedOrigins entry that is not an origin', { allowedOrigins: ['not an origin'] }],
  ])('refuses %s', (_, override) => {
    expectInvalidOptions(KeyholdMcpError, () => createMcpEndpoint({ ...valid, ...override } as never));
  });

  // Each of these is only used while a request is served; a mistake used to surface on that request.
  it.each([
    [
      'broker',
      'a broker without requestToken, before any tool asks for a token',
      { broker: {}, requestStateSecret: SECRET },
    ],
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

describe('requestStateSecret is required only with a broker; sourcePath only with claim codes', () => {
  it('creates an endpoint without a broker and without a requestStateSecret', () => {
    expect(() => createMcpEndpoint(valid)).not.toThrow();
  });

  it('serves tool modules without a sourcePath when no claim codes are read', () => {
    const module = { toolModuleId: 'm', displayName: 'M', tools: [] };
    expect(() => createMcpEndpoint({ ...valid, toolModules: [module] })).not.toThrow();
  });

  it('refuses a tool module without a sourcePath when claim codes scope modules by it', () => {
    const module = { toolModuleId: 'm', displayName: 'M', tools: [] };
    const claimCodes = { claims: { validate: async () => ({ ok: false }) } } as never;
    expectInvalidToolModule(() => createMcpEndpoint({ ...valid, toolModules: [module], claimCodes }));
  });
});

function expectInvalidToolModule(create: () => unknown): void {
  expect(create).toThrow(expect.objectContaining({ code: 'ERR_INVALID_TOOL_MODULE' }));
}

describe('createMcpRequestGate validates its options once, at creation', () => {
  it('refuses a resource that is not a ProtectedResource', () => {
    expectInvalidOptions(KeyholdMcpError, () =>
      createMcpRequestGate({ resource: { url: 'http://127.0.0.1:8787/mcp' } as never }),
    );
  });

  it('refuses an allowedHosts entry that is not a host', () => {
    expectInvalidOptions(KeyholdMcpError, () => createMcpRequestGate({ resource, allowedHosts: ['a b'] }));
  });
});
