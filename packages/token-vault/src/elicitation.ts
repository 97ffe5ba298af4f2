import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { TokenVaultError } from './errors.js';

/** The fields an {@link ElicitationRequiredError} is created with. */
export interface ElicitationDetails {
  /** The host's connect URL the user opens in a browser; it carries only the elicitation id. */
  readonly elicitationUrl: string;
  /** The id of this authorization request; also the MCP `elicitationId`. */
  readonly elicitationId: string;
  /** The provider id. */
  readonly provider: string;
  /** The requested scopes, in canonical form. */
  readonly scopes: readonly string[];
  /** The text shown to the user with the link. */
  readonly message: string;
}

/**
 * Thrown by `getToken` (and into a generator by `runWithAsks`) when no usable grant exists: the user must
 * open {@link ElicitationRequiredError.elicitationUrl} and authorize, then the client retries the call.
 *
 * @example
 * ```ts
 * try { await broker.getToken(ask, context); }
 * catch (e) { if (e instanceof ElicitationRequiredError) throw e.toMCPError(); throw e; }
 * ```
 */
export class ElicitationRequiredError extends TokenVaultError {
  readonly elicitationUrl: string;
  readonly elicitationId: string;
  readonly provider: string;
  readonly scopes: readonly string[];

  constructor(details: ElicitationDetails) {
    super('ERR_ELICITATION_REQUIRED', details.message);
    this.elicitationUrl = details.elicitationUrl;
    this.elicitationId = details.elicitationId;
    this.provider = details.provider;
    this.scopes = details.scopes;
  }

  /**
   * The SDK's own `UrlElicitationRequiredError` (JSON-RPC error -32042, data
   * `{ elicitations: [{ mode: 'url', elicitationId, url, message }] }`). Thrown from an `McpServer` tool
   * callback it reaches the client as a JSON-RPC error rather than a tool result, because it is an instance
   * from the host's own SDK copy (the SDK is a peer dependency).
   *
   * @example
   * ```ts
   * throw error.toMCPError();
   * ```
   */
  toMCPError(): UrlElicitationRequiredError {
    return new UrlElicitationRequiredError(
      [{ mode: 'url', elicitationId: this.elicitationId, url: this.elicitationUrl, message: this.message }],
      this.message,
    );
  }

  /**
   * The fallback for a client that did not declare the `elicitation.url` capability: a tool error result
   * that carries the link as text, so the model can show it to the user.
   *
   * @example
   * ```ts
   * return error.toToolResult();
   * ```
   */
  toToolResult(): CallToolResult {
    return {
      isError: true,
      content: [
        {
          type: 'text',
          text: `${this.message}\n\nOpen this link to authorize, then try again:\n${this.elicitationUrl}`,
        },
      ],
    };
  }
}
