import type { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { modernClient, startEndpoint, type TestEndpoint, textOf } from './fixtures.js';

let host: TestEndpoint | undefined;
const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await host?.close();
  host = undefined;
});

interface InputRequired {
  resultType: 'input_required';
  inputRequests: Record<string, { method: string; params: { mode: string; url: string; message: string } }>;
  requestState: string;
}

const CALL = { name: 'list_repos', arguments: { owner: 'acme' } };

async function manualClient(token = 'alice-token'): Promise<Client> {
  if (host === undefined) throw new Error('start the host first');
  const client = await modernClient(host.url, token, { autoFulfill: false });
  clients.push(client);
  return client;
}

async function firstRound(client: Client, params = CALL): Promise<InputRequired> {
  const result = (await client.callTool(params, {
    allowInputRequired: true,
  } as never)) as unknown as InputRequired;
  expect(result.resultType).toBe('input_required');
  return result;
}

function retry(client: Client, requestState: string, params = CALL, action = 'accept') {
  return client.callTool(
    { ...params, inputResponses: { authorization: { action } }, requestState } as never,
    { allowInputRequired: true } as never,
  );
}

function flip(state: string): string {
  const last = state.at(-2) === 'A' ? 'B' : 'A';
  return `${state.slice(0, -2)}${last}${state.at(-1)}`;
}

describe('2026-07-28 multi-round trip: the InputRequiredResult of a brokered ask', () => {
  it('carries one URL-mode elicitation and an opaque requestState that names no user', async () => {
    host = await startEndpoint();
    const first = await firstRound(await manualClient());
    const request = first.inputRequests['authorization'];
    expect(request?.method).toBe('elicitation/create');
    expect(request?.params).toMatchObject({ mode: 'url', message: 'GitHub authorization is needed' });
    const decoded = Buffer.from(first.requestState.split('.')[1] ?? '', 'base64url').toString('utf8');
    expect(decoded).not.toContain('alice');
    expect(decoded).not.toContain('client-a');
  });

  it('returns the result on the retry once the user authorized', async () => {
    host = await startEndpoint();
    const client = await manualClient();
    const first = await firstRound(client);
    host.broker.authorize(first.inputRequests['authorization']?.params.url ?? '');
    expect(textOf(await retry(client, first.requestState))).toBe('repos of acme with token-of-alice');
  });
});

describe('the requestState is integrity-protected, bound, expiring and single-use', () => {
  it('refuses a tampered requestState with -32602', async () => {
    host = await startEndpoint();
    const client = await manualClient();
    const first = await firstRound(client);
    host.broker.authorize(first.inputRequests['authorization']?.params.url ?? '');
    await expect(retry(client, flip(first.requestState))).rejects.toThrow(/Invalid or expired requestState/);
  });

  it('refuses a replayed requestState with -32602', async () => {
    host = await startEndpoint();
    const client = await manualClient();
    const first = await firstRound(client);
    host.broker.authorize(first.inputRequests['authorization']?.params.url ?? '');
    expect(textOf(await retry(client, first.requestState))).toContain('repos of acme');
    await expect(retry(client, first.requestState)).rejects.toThrow(/Invalid or expired requestState/);
  });

  it("refuses another principal's requestState", async () => {
    host = await startEndpoint();
    const first = await firstRound(await manualClient('alice-token'));
    await expect(retry(await manualClient('bob-token'), first.requestState)).rejects.toThrow(
      /Invalid or expired requestState/,
    );
  });

  it('refuses a requestState past its TTL by the injected clock', async () => {
    host = await startEndpoint(() => ({ requestStateTtlSeconds: 60 }));
    const client = await manualClient();
    const first = await firstRound(client);
    host.clock.advance(61_000);
    await expect(retry(client, first.requestState)).rejects.toThrow(/Invalid or expired requestState/);
  });

  it('refuses a requestState echoed with other arguments', async () => {
    host = await startEndpoint();
    const client = await manualClient();
    const first = await firstRound(client);
    host.broker.authorize(first.inputRequests['authorization']?.params.url ?? '');
    const other = { name: 'list_repos', arguments: { owner: 'someone-else' } };
    const result = await retry(client, first.requestState, other);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('another tool call');
  });

  it('does not run the tool when the user declined', async () => {
    host = await startEndpoint();
    const client = await manualClient();
    const first = await firstRound(client);
    const result = await retry(client, first.requestState, CALL, 'decline');
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('not given');
  });
});
