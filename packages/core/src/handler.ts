/**
 * What every Keyhold HTTP handler receives: raw strings plus what the host knows.
 */
export interface HandlerRequest {
  /** Upper-case HTTP method. */
  readonly method: string;
  /** The path without the query string, not decoded. */
  readonly path: string;
  /** The raw query string without the leading `?` (empty when there is none). */
  readonly query: string;
  /** Request headers with lower-cased names; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  /** The raw body as text (empty when there is none). */
  readonly body: string;
  /** The user id of the host's logged-in session, when there is one. */
  readonly userId?: string;
  /** The client address as the host or adapter determined it. */
  readonly ip?: string;
}

/**
 * What every Keyhold HTTP handler returns. Optional fields are omitted, never `null`.
 */
export interface HandlerResult {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}
