import type { OAuthAsk } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import type { UrlElicitationParams } from '../src/elicitation.js';
import { ElicitationRequiredError } from '../src/index.js';
import {
  ACME_TOKEN,
  authorizeInBrowser,
  elicitationOf,
  makeHarness,
  mockTokenEndpoint,
  tokenResponse,
} from './fixtures.js';
import { useProviderServer } from './provider-server.js';

const server = useProviderServer();

/**
 * The constructor shape and message behaviour of SDK v1's `UrlElicitationRequiredError` (an `McpError` whose
 * constructor writes `MCP error -32042: <message>` into `.message`), without depending on the SDK.
 */
class V1LikeUrlElicitationRequiredError extends Error {
  readonly code = -32042;
  readonly data: { elicitations: UrlElicitationParams[] };
  constructor(elicitations: UrlElicitationParams[], message = 'URL elicitation required') {
    super(`MCP error -32042: ${message}`);
    this.data = { elicitations };
  }
}

/** SDK v2's shape: no prefix. */
class V2LikeUrlElicitationRequiredError extends Error {
  readonly elicitations: UrlElicitationParams[];
  constructor(elicitations: UrlElicitationParams[], message?: string) {
    super(message);
    this.elicitations = elicitations;
  }
}

const details = {
  elicitationUrl: 'https://host.example/auth/oauth/connect?elicitation_id=e1',
  elicitationId: 'e1',
  provider: 'acme',
  scopes: ['read'],
  message: 'Connect Acme to list files',
};

describe('ElicitationRequiredError in MCP terms, without the MCP SDK', () => {
  it('toElicitationParams is the URL-mode elicitation MCP carries in -32042 data', () => {
    expect(new ElicitationRequiredError(details).toElicitationParams()).toEqual({
      mode: 'url',
      elicitationId: 'e1',
      url: 'https://host.example/auth/oauth/connect?elicitation_id=e1',
      message: 'Connect Acme to list files',
    });
  });

  it("toMCPError(ctor) builds the host's class with the one elicitation and the plain message (no v1 double prefix)", () => {
    const error = new ElicitationRequiredError(details).toMCPError(V1LikeUrlElicitationRequiredError);
    expect(error).toBeInstanceOf(V1LikeUrlElicitationRequiredError);
    expect(error.code).toBe(-32042);
    expect(error.data.elicitations).toEqual([
      { mode: 'url', elicitationId: 'e1', url: details.elicitationUrl, message: details.message },
    ]);
    // The v1 client prefixes "MCP error -32042: " to what it receives; the server must not add one too.
    expect(error.message).toBe('Connect Acme to list files');
  });

  it('toMCPError(ctor) works the same with a class that does not prefix (SDK v2)', () => {
    const error = new ElicitationRequiredError(details).toMCPError(V2LikeUrlElicitationRequiredError);
    expect(error).toBeInstanceOf(V2LikeUrlElicitationRequiredError);
    expect(error.message).toBe('Connect Acme to list files');
    expect(error.elicitations).toHaveLength(1);
  });

  it('toToolResult carries the link as text, for clients without URL elicitation', () => {
    expect(new ElicitationRequiredError(details).toToolResult()).toEqual({
      isError: true,
      content: [
        {
          type: 'text',
          text: `Connect Acme to list files\n\nOpen this link to authorize, then try again:\n${details.elicitationUrl}`,
        },
      ],
    });
  });
});

describe('Stateless brokering: the tool call fails with the link, and the retried call gets the token', () => {
  const ask: OAuthAsk = {
    ask: 'oauth',
    provider: 'acme',
    scopes: ['read'],
    message: 'Connect Acme to list files',
  };

  it('the first ask answers the elicitation, the browser authorizes, and the retried ask gets the token', async () => {
    const { broker, context } = makeHarness();
    const params = (await elicitationOf(broker.requestToken(ask, context))).toElicitationParams();
    expect(params.url).toBe(`https://host.example/auth/oauth/connect?elicitation_id=${params.elicitationId}`);
    expect(params.message).toBe('Connect Acme to list files');

    const { callback } = await authorizeInBrowser(broker, params.url);
    mockTokenEndpoint(server, ACME_TOKEN, () =>
      tokenResponse({ access_token: 'acme-token', expires_in: 3600 }),
    );
    expect((await broker.callback(callback)).status).toBe(200);

    expect(await broker.requestToken(ask, context)).toEqual({ ok: true, accessToken: 'acme-token' });
  });
});
