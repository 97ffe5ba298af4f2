import type { Logger, StorageUnavailableError } from '@keyhold/core';

/**
 * Where a request notes the storage outage one of its steps hit inside the SDK (a tool's broker or store,
 * the `requestState` single-use check), so the endpoint can answer 503 instead of the SDK's 200.
 */
export interface OutageSlot {
  error?: StorageUnavailableError;
}

/**
 * The MCP answer to a storage outage: HTTP 503 with `Retry-After` and a JSON-RPC internal error (no id: it
 * answers the HTTP request, not one message), never cached. One warn line names what failed and where.
 */
export function storageUnavailableResponse(
  error: StorageUnavailableError,
  logger: Logger,
  step: string,
): Response {
  logger.warn(
    { event: 'storage_unavailable', component: error.component, endpoint: 'mcp', step },
    'mcp: storage unavailable, answered 503',
  );
  return new Response(
    JSON.stringify({
      jsonrpc: '2.0',
      error: { code: -32603, message: 'Service temporarily unavailable' },
      id: null,
    }),
    {
      status: 503,
      headers: {
        'content-type': 'application/json',
        'cache-control': 'no-store',
        'retry-after': String(error.retryAfterSeconds),
      },
    },
  );
}
