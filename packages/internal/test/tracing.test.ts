import type { HandlerRequest, RequestOutcome, RequestTracing } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import { traceHandler } from '../src/index.js';

const request: HandlerRequest = { method: 'GET', path: '/', query: '', headers: {}, body: '' };

function recording(): { tracing: RequestTracing; spans: { name: string; outcome?: RequestOutcome }[] } {
  const spans: { name: string; outcome?: RequestOutcome }[] = [];
  return {
    spans,
    tracing: {
      start(name) {
        const span: { name: string; outcome?: RequestOutcome } = { name };
        spans.push(span);
        return (outcome) => {
          span.outcome = outcome;
        };
      },
    },
  };
}

describe('traceHandler: one span per request, ended with the status or the exception', () => {
  it('ends the span with the status the handler answered', async () => {
    const { tracing, spans } = recording();
    const traced = traceHandler(async () => ({ status: 202, headers: {} }), tracing, 'webhook');
    expect((await traced(request)).status).toBe(202);
    expect(spans).toEqual([{ name: 'webhook', outcome: { status: 202 } }]);
  });

  it('ends the span as a 500 with the error when the handler throws, and rethrows', async () => {
    const { tracing, spans } = recording();
    const failure = new Error('store down');
    const traced = traceHandler(async () => Promise.reject(failure), tracing, 'registry');
    await expect(traced(request)).rejects.toBe(failure);
    expect(spans).toEqual([{ name: 'registry', outcome: { status: 500, error: failure } }]);
  });

  it('returns the handler itself when there is no tracing (nothing per request)', () => {
    const handler = async () => ({ status: 204, headers: {} });
    expect(traceHandler(handler, undefined, 'x')).toBe(handler);
  });
});
