// The child process of flat-memory.test.ts (also run by hand: `node --expose-gc <this file>`). It serves
// REQUESTS requests from PRINCIPALS distinct principals through the BUILT endpoint (dist/), in process,
// and prints one JSON line: heap and RSS after a warm-up and at the end, plus every checkpoint between.
//
// Each principal holds one ten-request conversation, either era by turns, ten principals at a time:
//   2025 era (SDK v1 shape): initialize, notifications/initialized, tools/list, tools/call echo ×2,
//     tools/call list_repos (-32042 URL elicitation), the same call once authorized, tools/list with a
//     claim code, tools/call echo ×2.
//   2026-07-28 (SDK v2 shape, the `_meta` envelope and MCP-* headers): server/discover, tools/list,
//     tools/call echo, tools/call list_repos (InputRequiredResult + requestState), its retry with the
//     requestState (consumed: one id in the request-state store), the call once more (token granted),
//     tools/list with a claim code, tools/call echo ×2, tools/list.
// The warm-up is the first WARMUP requests (the first WARMUP / 10 principals); the principals served after
// it were never seen before, so anything kept per principal or per request shows up as growth.

import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as tick } from 'node:timers/promises';
import { createClaims, createMemoryClaimStore } from '@keyhold/claim-codes';
import { createAuthorizationServer, createMemoryStorage, createStaticTenants } from '@keyhold/oauth-core';
import * as z from 'zod';
import { createMcpEndpoint, defineTool } from '../../dist/index.js';

const REQUESTS = Number(process.argv[2] ?? 10_000);
const PRINCIPALS = Number(process.argv[3] ?? 1_000);
const WARMUP = Number(process.argv[4] ?? 1_000);
const CONVERSATION = 10;
const CONCURRENCY = 10;
const CHECKPOINT_EVERY = 1_000;
if (REQUESTS !== PRINCIPALS * CONVERSATION) throw new Error('requests must be ten per principal');
if (typeof globalThis.gc !== 'function') throw new Error('run with --expose-gc');

const PUBLIC_URL = 'http://127.0.0.1:8787/mcp';
const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'keyhold-mcp-memory-')));
for (const dir of ['workspace-a', 'workspace-b']) mkdirSync(join(root, dir));
writeFileSync(join(root, 'workspace-a/notes.ts'), '// a tool module\n');
writeFileSync(join(root, 'workspace-b/github.ts'), '// a tool module\n');

// Bounded on purpose: the fixtures' own state must not be what grows. A user "authorizes" as soon as
// they are shown the link, so the retry finds a token.
const granted = new Set();
let elicitations = 0;
const broker = {
  async requestToken(ask, context) {
    if (granted.has(context.userId)) return { ok: true, accessToken: `token-of-${context.userId}` };
    granted.add(context.userId);
    if (granted.size > 4 * CONCURRENCY) granted.delete(granted.values().next().value);
    elicitations = (elicitations + 1) % 1_000_000;
    const elicitationId = `e${elicitations}`;
    return {
      ok: false,
      error: {
        elicitationUrl: `https://host.example/auth/oauth/connect?elicitation_id=${elicitationId}`,
        elicitationId,
        provider: ask.provider,
        scopes: ['repo'],
        message: 'GitHub authorization is needed',
      },
    };
  },
};

// Token `user-<n>` is principal `user-<n>`: a real tenant (oauth-core) verifies tokens its key signed.
const KEY = new Uint8Array(32).fill(9);
const oauth = createAuthorizationServer({
  baseUrl: 'http://127.0.0.1:8787',
  tenants: createStaticTenants({
    demo: { signingKeys: [{ kid: 'k', alg: 'HS256', secret: KEY }], singleUserId: 'owner' },
  }),
  storage: createMemoryStorage(),
});
const resource = oauth.protectedResource('demo', { url: PUBLIC_URL });
const b64 = (value) => Buffer.from(value).toString('base64url');
function sign(sub) {
  const now = Math.floor(Date.now() / 1000);
  const header = b64(JSON.stringify({ alg: 'HS256', typ: 'at+jwt', kid: 'k' }));
  const payload = b64(
    JSON.stringify({
      iss: 'http://127.0.0.1:8787/tenant/demo',
      sub,
      aud: PUBLIC_URL,
      client_id: 'memory-client',
      scope: 'mcp:tools',
      jti: sub,
      iat: now,
      exp: now + 3600,
    }),
  );
  return `${header}.${payload}.${createHmac('sha256', KEY).update(`${header}.${payload}`).digest('base64url')}`;
}
const signed = Array.from({ length: PRINCIPALS }, (_, n) => sign(`user-${n}`));
const testResource = {
  ...resource,
  verify: (authorization) =>
    resource.verify(
      authorization?.replace(/^Bearer user-(\d+)$/, (whole, n) =>
        Number(n) < PRINCIPALS ? `Bearer ${signed[Number(n)]}` : whole,
      ),
    ),
};

const claims = createClaims({ store: createMemoryClaimStore() });
const claimCode = (await claims.create({ scopeDir: join(root, 'workspace-a') })).code;

const endpoint = createMcpEndpoint({
  resource: testResource,
  serverInfo: { name: 'memory-host', version: '1.0.0' },
  toolModules: [
    {
      toolModuleId: 'notes',
      displayName: 'Notes',
      sourcePath: join(root, 'workspace-a/notes.ts'),
      tools: [
        defineTool({
          name: 'echo',
          inputSchema: z.object({ text: z.string() }),
          handler: ({ text }, context) => ({
            content: [{ type: 'text', text: `${text} (${context.era}, ${context.principal.userId})` }],
          }),
        }),
      ],
    },
    {
      toolModuleId: 'github',
      displayName: 'GitHub',
      sourcePath: join(root, 'workspace-b/github.ts'),
      tools: [
        defineTool({
          name: 'list_repos',
          inputSchema: z.object({ owner: z.string() }),
          async *handler({ owner }) {
            const token = yield { ask: 'oauth', provider: 'github', scopes: ['repo'] };
            return { content: [{ type: 'text', text: `repos of ${owner} with ${token}` }] };
          },
        }),
      ],
    },
  ],
  claimCodes: { claims },
  broker,
  requestStateSecret: 'a-request-state-secret-of-32-bytes-at-least!',
});

const failures = [];
const outcomes = {};
let sent = 0;

function fail(step, detail) {
  if (failures.length < 10) failures.push(`${step}: ${detail}`);
}

/** Sends one POST, reads the whole body (JSON or SSE) and returns the status, headers and JSON-RPC message. */
async function post(token, body, headers) {
  const response = await endpoint.fetch(
    new Request(PUBLIC_URL, {
      method: 'POST',
      headers: {
        host: '127.0.0.1:8787',
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        authorization: `Bearer ${token}`,
        ...headers,
      },
      body: JSON.stringify(body),
    }),
  );
  sent += 1;
  const text = await response.text();
  let message;
  if (text !== '') {
    const json = response.headers.get('content-type')?.includes('text/event-stream')
      ? text
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
          .join('')
      : text;
    message = JSON.parse(json);
  }
  return { status: response.status, headers: response.headers, message };
}

function expectResult(step, reply, check) {
  const key = `${step} ${reply.status}`;
  outcomes[key] = (outcomes[key] ?? 0) + 1;
  if (reply.status !== 200) return fail(step, `status ${reply.status}`);
  const problem = check(reply.message);
  if (problem !== undefined) fail(step, `${problem}: ${JSON.stringify(reply.message).slice(0, 300)}`);
}

const textOf = (message) => (message?.result?.content ?? []).map((item) => item.text ?? '').join('\n');
const toolNames = (message) => (message?.result?.tools ?? []).map((tool) => tool.name).sort();
const sameTools = (expected) => (message) =>
  toolNames(message).join(',') === expected ? undefined : 'tools differ';
const echoes = (expected) => (message) => (textOf(message) === expected ? undefined : 'echo differs');

async function legacyConversation(n) {
  const token = `user-${n}`;
  let id = 0;
  const rpc = (method, params) => ({ jsonrpc: '2.0', id: id++, method, ...(params ? { params } : {}) });
  const init = await post(
    token,
    rpc('initialize', {
      protocolVersion: LEGACY,
      capabilities: { elicitation: { url: {} } },
      clientInfo: { name: 'legacy-memory-client', version: '1.0.0' },
    }),
    {},
  );
  expectResult('legacy initialize', init, (m) => (m?.result?.protocolVersion ? undefined : 'no version'));
  const session = init.headers.get('mcp-session-id') ?? '';
  const headers = { 'mcp-protocol-version': LEGACY, 'mcp-session-id': session };
  const initialized = await post(token, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  outcomes[`legacy initialized ${initialized.status}`] =
    (outcomes[`legacy initialized ${initialized.status}`] ?? 0) + 1;
  if (initialized.status !== 202) fail('legacy initialized', `status ${initialized.status}`);
  const call = (name, args) => rpc('tools/call', { name, arguments: args });
  expectResult(
    'legacy tools/list',
    await post(token, rpc('tools/list'), headers),
    sameTools('echo,list_repos'),
  );
  for (let k = 0; k < 2; k++) {
    expectResult(
      'legacy echo',
      await post(token, call('echo', { text: `hi ${k}` }), headers),
      echoes(`hi ${k} (legacy, ${token})`),
    );
  }
  expectResult('legacy brokered', await post(token, call('list_repos', { owner: 'acme' }), headers), (m) =>
    m?.error?.code === -32042 ? undefined : 'no -32042',
  );
  expectResult(
    'legacy brokered retry',
    await post(token, call('list_repos', { owner: 'acme' }), headers),
    (m) => (textOf(m) === `repos of acme with token-of-${token}` ? undefined : 'no repos'),
  );
  expectResult(
    'legacy tools/list claimed',
    await post(token, rpc('tools/list'), { ...headers, 'mcp-claim-code': claimCode }),
    sameTools('echo'),
  );
  for (let k = 2; k < 4; k++) {
    expectResult(
      'legacy echo',
      await post(token, call('echo', { text: `hi ${k}` }), headers),
      echoes(`hi ${k} (legacy, ${token})`),
    );
  }
}

async function modernConversation(n) {
  const token = `user-${n}`;
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'modern-memory-client', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { url: {} } },
  };
  let id = 0;
  const send = (method, params = {}, extraHeaders = {}) =>
    post(
      token,
      { jsonrpc: '2.0', id: id++, method, params: { ...params, _meta: envelope } },
      {
        'mcp-protocol-version': MODERN,
        'mcp-method': method,
        ...(method === 'tools/call' ? { 'mcp-name': params.name } : {}),
        ...extraHeaders,
      },
    );
  expectResult('modern server/discover', await send('server/discover'), (m) =>
    m?.result?.supportedVersions?.includes(MODERN) ? undefined : 'no 2026-07-28',
  );
  expectResult('modern tools/list', await send('tools/list'), sameTools('echo,list_repos'));
  expectResult(
    'modern echo',
    await send('tools/call', { name: 'echo', arguments: { text: 'hi 0' } }),
    echoes(`hi 0 (modern, ${token})`),
  );
  const call = { name: 'list_repos', arguments: { owner: 'acme' } };
  const first = await send('tools/call', call);
  expectResult('modern brokered', first, (m) =>
    m?.result?.resultType === 'input_required' && typeof m.result.requestState === 'string'
      ? undefined
      : 'not input_required',
  );
  const requestState = first.message?.result?.requestState ?? '';
  expectResult(
    'modern brokered retry',
    await send('tools/call', {
      ...call,
      inputResponses: { authorization: { action: 'accept' } },
      requestState,
    }),
    (m) => (textOf(m) === `repos of acme with token-of-${token}` ? undefined : 'no repos'),
  );
  expectResult('modern brokered again', await send('tools/call', call), (m) =>
    textOf(m) === `repos of acme with token-of-${token}` ? undefined : 'no repos',
  );
  expectResult(
    'modern tools/list claimed',
    await send('tools/list', {}, { 'mcp-claim-code': claimCode }),
    sameTools('echo'),
  );
  for (let k = 1; k < 3; k++) {
    expectResult(
      'modern echo',
      await send('tools/call', { name: 'echo', arguments: { text: `hi ${k}` } }),
      echoes(`hi ${k} (modern, ${token})`),
    );
  }
  expectResult('modern tools/list', await send('tools/list'), sameTools('echo,list_repos'));
}

async function measure() {
  // Several collections, with a turn of the event loop between: finalizers and weak maps settle.
  for (let k = 0; k < 4; k++) {
    globalThis.gc();
    await tick();
  }
  const usage = process.memoryUsage();
  return {
    requests: sent,
    heapUsedBytes: usage.heapUsed,
    rssBytes: usage.rss,
    externalBytes: usage.external,
    arrayBuffersBytes: usage.arrayBuffers,
  };
}

const started = performance.now();
const checkpoints = [await measure()];
let warm;
for (let batch = 0; batch < PRINCIPALS; batch += CONCURRENCY) {
  const conversations = [];
  for (let n = batch; n < Math.min(batch + CONCURRENCY, PRINCIPALS); n++) {
    conversations.push(n % 2 === 0 ? legacyConversation(n) : modernConversation(n));
  }
  await Promise.all(conversations);
  if (sent % CHECKPOINT_EVERY === 0) {
    const point = await measure();
    checkpoints.push(point);
    if (sent === WARMUP) warm = point;
  }
}
const end = checkpoints.at(-1);
await endpoint.close();
const elapsedMs = Math.round(performance.now() - started);

process.stdout.write(
  `${JSON.stringify({
    node: process.version,
    requests: sent,
    principals: PRINCIPALS,
    warmupRequests: WARMUP,
    elapsedMs,
    warm,
    end,
    heapGrowthBytes: end.heapUsedBytes - warm.heapUsedBytes,
    rssGrowthBytes: end.rssBytes - warm.rssBytes,
    checkpoints: checkpoints.map((point) => ({
      requests: point.requests,
      heapUsedBytes: point.heapUsedBytes,
      rssBytes: point.rssBytes,
    })),
    outcomes,
    failures,
  })}\n`,
);
