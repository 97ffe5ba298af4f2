// Shared by the mounting tests: the endpoint each framework mounts, and the end-to-end story every mounting
// must pass with a real 2026-07-28 client (SDK v2, pinned) and a real 2025-11-25 client (SDK v1).
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createManualClock, type ManualClock } from '@keyhold/core';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { createMcpEndpoint, type McpEndpoint } from '../../src/index.js';
import {
  fakeBroker,
  github,
  legacyClient,
  modernClient,
  notes,
  SECRET,
  testResource,
  textOf,
} from '../fixtures.js';

/** An endpoint as a host builds it, with the fake verifier and broker of the fixtures. */
export interface MountedEndpoint {
  readonly endpoint: McpEndpoint;
  readonly broker: ReturnType<typeof fakeBroker>;
  readonly clock: ManualClock;
}

/**
 * Builds the endpoint for `url`, the URL clients use: a host knows it only after `listen`, so every test
 * listens first and builds the endpoint second (the route reads it lazily).
 */
export function buildEndpoint(url: string): MountedEndpoint {
  const clock = createManualClock(Date.now());
  const broker = fakeBroker();
  const endpoint = createMcpEndpoint({
    resource: testResource(clock, url),
    serverInfo: { name: 'mounted-host', version: '1.0.0' },
    toolModules: [notes, github],
    broker,
    requestStateSecret: SECRET,
    clock,
  });
  return { endpoint, broker, clock };
}

/** The `/mcp` URL of a `node:http` server listening on an ephemeral loopback port. */
export async function listenOnLoopback(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

/** Closes a `node:http` server, dropping kept-alive connections first. */
export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/**
 * A 2026-07-28 client lists the tools, calls `echo`, and calls the brokered `list_repos`: the server answers
 * with an `InputRequiredResult` asking for a URL elicitation, the client's handler plays the user
 * authorizing, and the client's automatic retry (carrying the sealed `requestState`) gets the result.
 */
export async function exerciseModernEra(url: string, mounted: MountedEndpoint): Promise<void> {
  const opened: string[] = [];
  const client = await modernClient(url, 'alice-token', {
    onElicitation: (link) => {
      opened.push(link);
      mounted.broker.authorize(link);
    },
  });
  try {
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['echo', 'list_repos']);
    const echoed = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(textOf(echoed)).toBe('hi (modern, alice)');
    const repos = await client.callTool({ name: 'list_repos', arguments: { owner: 'acme' } });
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatch(/^https:\/\/host\.example\/auth\/oauth\/connect\?elicitation_id=e\d+$/);
    expect(textOf(repos)).toBe('repos of acme with token-of-alice');
  } finally {
    await client.close();
  }
}

/**
 * A 2025-11-25 client (SDK v1) initializes, lists the tools, calls `echo`, and calls `list_repos`: the
 * call fails with `-32042` carrying the link (the signed `Mcp-Session-Id` told the stateless server the
 * client shows URL elicitations), the user authorizes, and the same call made again gets the result.
 */
export async function exerciseLegacyEra(url: string, mounted: MountedEndpoint): Promise<void> {
  const client = await legacyClient(url, 'bob-token');
  try {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['echo', 'list_repos']);
    const echoed = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(textOf(echoed)).toBe('hi (legacy, bob)');
    const error = await client
      .callTool({ name: 'list_repos', arguments: { owner: 'acme' } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.UrlElicitationRequired);
    expect((error as McpError).message).toBe('MCP error -32042: GitHub authorization is needed');
    const elicitations = ((error as McpError).data as { elicitations: { url: string }[] }).elicitations;
    expect(elicitations).toHaveLength(1);
    mounted.broker.authorize(elicitations[0]?.url ?? '');
    const repos = await client.callTool({ name: 'list_repos', arguments: { owner: 'acme' } });
    expect(textOf(repos)).toBe('repos of acme with token-of-bob');
  } finally {
    await client.close();
  }
}

/** A request without a token gets the RFC 6750 challenge naming the RFC 9728 metadata URL. */
export async function expectBearerChallenge(url: string): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toContain(
    `resource_metadata="${new URL('/.well-known/oauth-protected-resource/mcp', url).href}"`,
  );
  await response.body?.cancel();
}
