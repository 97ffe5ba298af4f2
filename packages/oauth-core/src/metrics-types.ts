import type { CimdErrorCode } from './cimd/types.js';

/** Attributes of one `mcp_auth.events` count: one per handler invocation; absent attributes are omitted. */
export interface AuthEventAttributes {
  readonly endpoint:
    | 'authorize'
    | 'consent'
    | 'connected_apps'
    | 'token'
    | 'register'
    | 'revoke'
    | 'introspect'
    | 'metadata'
    | 'jwks'
    | 'userinfo';
  readonly status: number;
  readonly grant_type?: string;
  readonly client_type?: 'metadata_document' | 'registered';
  readonly error_code?: string;
  /** The decision's reason code: one of `AUTH_EVENT_REASONS` (anything else is `other`), so bounded. */
  readonly reason?: string;
}

/** Attributes of one `mcp_auth.cimd.fetches` count: one per metadata-document resolution attempt. */
export interface CimdFetchAttributes {
  readonly status: 'success' | 'error';
  readonly cached: boolean;
  readonly cimd_error?: CimdErrorCode;
}

/**
 * Where the authorization server reports its counters. By default `mcp_auth.events` and
 * `mcp_auth.cimd.fetches` are recorded through `@opentelemetry/api` when it is installed and nothing is
 * recorded when it is not; `metrics: false` turns them off, your own implementation sends them elsewhere.
 *
 * @example
 * ```ts
 * metrics.event({ endpoint: 'token', status: 200, grant_type: 'refresh_token', client_type: 'registered' });
 * ```
 */
export interface AuthMetrics {
  event(attributes: AuthEventAttributes): void;
  cimdFetch(attributes: CimdFetchAttributes): void;
}

/**
 * Metrics that record nothing: what `metrics: false` selects, and what the server compares with to skip
 * building events nobody records (internal).
 */
export const noopMetrics: AuthMetrics = Object.freeze({ event: () => {}, cimdFetch: () => {} });
