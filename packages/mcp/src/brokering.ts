import type { OAuthAsk } from '@keyhold/core';

/**
 * The login link a user must open before a brokered token exists: what `@keyhold/token-vault`'s
 * `ElicitationRequiredError` carries.
 */
export interface BrokerElicitation {
  readonly elicitationUrl: string;
  readonly elicitationId: string;
  readonly provider: string;
  readonly scopes: readonly string[];
  readonly message: string;
}

/**
 * The token broker as `@keyhold/mcp` uses it: `@keyhold/token-vault`'s `TokenBroker` fits as it is.
 * `requestToken` answers with the token, or with the elicitation the user must complete.
 */
export interface McpTokenBroker {
  requestToken(
    ask: OAuthAsk,
    context: {
      readonly tenantId: string;
      readonly userId: string;
      readonly toolModuleId: string;
      /** The MCP client of the tool call: it labels the broker's events. */
      readonly clientId?: string;
    },
  ): Promise<
    | { readonly ok: true; readonly accessToken: string }
    | { readonly ok: false; readonly error: BrokerElicitation }
  >;
}

/** Thrown inside a tool call when the user must authorize first; the endpoint turns it into the era's answer. */
export class AuthorizationNeeded extends Error {
  readonly elicitation: BrokerElicitation;
  constructor(elicitation: BrokerElicitation) {
    super(elicitation.message);
    this.name = 'AuthorizationNeeded';
    this.elicitation = elicitation;
  }
}

/** The link as tool text, for a client that cannot show URL elicitations. */
export function linkAsToolText(elicitation: BrokerElicitation): {
  isError: true;
  content: { type: 'text'; text: string }[];
} {
  return {
    isError: true,
    content: [
      {
        type: 'text',
        text: `${elicitation.message}\n\nOpen this link to authorize, then try again:\n${elicitation.elicitationUrl}`,
      },
    ],
  };
}
