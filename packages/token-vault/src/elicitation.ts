import { TokenVaultError } from './errors.js';

/**
 * One URL-mode elicitation as MCP carries it in the data of a `-32042` error
 * (`{ elicitations: [UrlElicitationParams] }`): a structural copy of the SDK's type, so this package needs no
 * MCP SDK.
 */
export interface UrlElicitationParams {
  readonly mode: 'url';
  readonly elicitationId: string;
  readonly url: string;
  readonly message: string;
}

/**
 * A tool error result carrying text, in the shape of MCP's `CallToolResult` (structural: no SDK types).
 */
export interface ElicitationToolResult {
  isError: true;
  content: { type: 'text'; text: string }[];
}

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
 * The `error` of a `requestToken` outcome when no usable grant exists: the user must open
 * {@link ElicitationRequiredError.elicitationUrl} and authorize, then the client retries the call. It is an
 * `Error` so a tool may throw it on, and it turns itself into what MCP clients understand.
 *
 * @example
 * ```ts
 * const outcome = await broker.requestToken(ask, context);
 * if (!outcome.ok) throw outcome.error.toMCPError(UrlElicitationRequiredError);
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
   * This elicitation as MCP's URL-mode elicitation parameters, for any SDK or wire format.
   *
   * @example
   * ```ts
   * const params = error.toElicitationParams(); // { mode: 'url', elicitationId, url, message }
   * ```
   */
  toElicitationParams(): UrlElicitationParams {
    return {
      mode: 'url',
      elicitationId: this.elicitationId,
      url: this.elicitationUrl,
      message: this.message,
    };
  }

  /**
   * Builds the host's own MCP SDK error for this elicitation (JSON-RPC `-32042`, data
   * `{ elicitations: [{ mode: 'url', elicitationId, url, message }] }`): pass the SDK's
   * `UrlElicitationRequiredError` class, so the instance comes from the host's SDK copy and an `McpServer`
   * tool callback that throws it reaches the client as a JSON-RPC error rather than a tool result. The
   * error's `.message` is set back to the plain message afterwards: SDK v1's `McpError` prefixes
   * `MCP error -32042: ` into it, and the v1 client prefixes the received message again (SDK v2 adds no
   * prefix, so there this changes nothing).
   *
   * @example
   * ```ts
   * import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
   * throw error.toMCPError(UrlElicitationRequiredError);
   * ```
   */
  toMCPError<E extends Error>(ctor: new (elicitations: UrlElicitationParams[], message?: string) => E): E {
    const mcpError = new ctor([this.toElicitationParams()], this.message);
    mcpError.message = this.message;
    return mcpError;
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
  toToolResult(): ElicitationToolResult {
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
