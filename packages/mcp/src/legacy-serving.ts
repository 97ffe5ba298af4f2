import {
  type AuthInfo,
  type EventStore,
  type McpServer,
  type McpServerFactory,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';

/** The `retry` an SSE answer's priming event carries: how long a client waits before it reconnects. */
const SSE_RETRY_MS = 1000;

/**
 * An event store that only numbers events. The SDK sends a priming event (an event id and `retry`, the
 * Streamable HTTP transport's SHOULD at 2025-11-25) only when a store is configured; serving is stateless, so a
 * reconnection with `Last-Event-ID` is answered 405 like any GET and nothing is ever replayed or kept.
 */
function numberingEventStore(): EventStore {
  let next = 0;
  return {
    storeEvent: async (streamId) => `${streamId}_${++next}`,
    replayEventsAfter: async () => {
      throw new Error('stateless serving keeps no events to replay');
    },
  };
}

/**
 * Stateless serving of 2025-era POSTs, as the SDK's `legacy: 'stateless'` leg does it (a fresh server from
 * the factory over a fresh transport per request), except that the transport gets an event store and a
 * `retryInterval`, options the SDK's leg does not expose, so SSE answers start with a priming event.
 */
export function createLegacyServing(
  factory: McpServerFactory,
  maxRequestBodySize: number,
  onerror: (error: Error) => void,
): (request: Request, options: { authInfo: AuthInfo; parsedBody?: unknown }) => Promise<Response> {
  return async (request, options) => {
    try {
      return await serve(request, options);
    } catch (error) {
      // As the SDK's leg: reported, and answered with a JSON-RPC internal error that names nothing.
      onerror(error instanceof Error ? error : new Error(String(error)));
      return new Response(
        JSON.stringify({
          jsonrpc: '2.0',
          error: { code: -32603, message: 'Internal server error' },
          id: null,
        }),
        {
          status: 500,
          headers: { 'content-type': 'application/json' },
        },
      );
    }
  };

  async function serve(
    request: Request,
    options: { authInfo: AuthInfo; parsedBody?: unknown },
  ): Promise<Response> {
    const server = (await factory({
      era: 'legacy',
      authInfo: options.authInfo,
      requestInfo: request,
    })) as McpServer;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      eventStore: numberingEventStore(),
      retryInterval: SSE_RETRY_MS,
      maxRequestBodySize,
    });
    await server.connect(transport);
    const teardown = () => {
      transport.close().catch(() => {});
      server.close().catch(() => {});
    };
    request.signal?.addEventListener('abort', teardown, { once: true });
    const response = await transport.handleRequest(request, {
      authInfo: options.authInfo,
      ...(options.parsedBody === undefined ? {} : { parsedBody: options.parsedBody }),
    });
    if (response.body === null || !/^text\/event-stream/i.test(response.headers.get('content-type') ?? '')) {
      teardown();
      return response;
    }
    const reader = response.body.getReader();
    let done = false;
    const finish = () => {
      if (!done) {
        done = true;
        teardown();
      }
    };
    const body = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        try {
          const chunk = await reader.read();
          if (chunk.done) {
            finish();
            controller.close();
          } else controller.enqueue(chunk.value);
        } catch (error) {
          finish();
          controller.error(error);
        }
      },
      cancel: (reason) => {
        finish();
        return reader.cancel(reason).catch(() => {});
      },
    });
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  }
}
