import { createManualClock } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import { createLegacyCapabilities } from '../src/legacy-capabilities.js';
import { SECRET } from './fixtures.js';
import { inProcessEndpoint, PUBLIC_URL } from './helpers.js';

describe('the 2025-era capability id (signed Mcp-Session-Id)', () => {
  const clock = createManualClock(1_700_000_000_000);
  const capabilities = createLegacyCapabilities(SECRET, 60_000, clock);

  it('reads back the URL-elicitation bit for the principal it was minted for', async () => {
    expect(await capabilities.urlElicitation(await capabilities.mint(true, 'alice\0c'), 'alice\0c')).toBe(
      true,
    );
    expect(await capabilities.urlElicitation(await capabilities.mint(false, 'alice\0c'), 'alice\0c')).toBe(
      false,
    );
  });

  it('reads as no capability for another principal, garbage, a forged MAC or an expired id', async () => {
    const id = await capabilities.mint(true, 'alice\0c');
    expect(await capabilities.urlElicitation(id, 'bob\0c')).toBe(false);
    expect(await capabilities.urlElicitation('not-an-id', 'alice\0c')).toBe(false);
    expect(await capabilities.urlElicitation(null, 'alice\0c')).toBe(false);
    const [version, body] = id.split('.');
    expect(await capabilities.urlElicitation(`${version}.${body}.AAAA`, 'alice\0c')).toBe(false);
    clock.advance(60_001);
    expect(await capabilities.urlElicitation(id, 'alice\0c')).toBe(false);
  });

  it('is issued on the answer to initialize, as visible ASCII', async () => {
    const { endpoint } = inProcessEndpoint();
    const response = await endpoint.fetch(
      new Request(PUBLIC_URL, {
        method: 'POST',
        headers: {
          host: '127.0.0.1:8787',
          authorization: 'Bearer alice-token',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: { elicitation: { url: {} } },
            clientInfo: { name: 'raw', version: '1' },
          },
        }),
      }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toMatch(/^[\x21-\x7e]+$/);
  });
});
