// The reference of the MCP scenario: the MCP SDK v2 serving the example host's `list_notes` tool with no
// authorization at all, wired as the SDK documents a plain node:http server: `createMcpHandler` (a stateless
// server built per request, as @keyhold/mcp builds it) behind `toNodeHandler` of @modelcontextprotocol/node,
// with that package's localhost Host and Origin guards in front (DNS-rebinding checks, which the host's
// endpoint makes too; not authorization). The tool reads its notes as the host's does: the same query on the
// same table of a SQLite file, empty, so both answer `[]` and differ only in what serves the call.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteDatabase } from '@keyhold/store-sqlite';
import {
  localhostHostValidation,
  localhostOriginValidation,
  type NodeIncomingMessageLike,
  toNodeHandler,
} from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { LIST_NOTES } from '../mcp.js';
import { announce } from './common.js';

const MCP_PATH = '/mcp';
/** The host's own list size (`DEFAULT_LIST_LIMIT` of examples/host/src/host-state.ts). */
const LIST_LIMIT = 200;

const dir = mkdtempSync(join(tmpdir(), 'keyhold-bench-mcp-'));
const db = openSqliteDatabase(join(dir, 'records.db'));
// The example host's records table and the statement its `list` runs (examples/host/src/host-state.ts).
db.exec(`
CREATE TABLE keyhold_host_records (
  id INTEGER PRIMARY KEY AUTOINCREMENT, collection TEXT NOT NULL, value TEXT NOT NULL
);
CREATE INDEX keyhold_host_records_collection ON keyhold_host_records (collection, id);
`);
const list = db.prepare(
  `SELECT value FROM (SELECT id, value FROM keyhold_host_records WHERE collection = ?
   ORDER BY id DESC LIMIT ?) ORDER BY id`,
);

const handler = createMcpHandler(() => {
  const server = new McpServer(
    { name: 'keyhold-bench-mcp-sdk', version: '0.0.0' },
    { capabilities: { tools: { listChanged: false } } },
  );
  server.registerTool(LIST_NOTES.name, { description: LIST_NOTES.description }, async () => {
    const notes = (list.all('notes', LIST_LIMIT) as { value: string }[]).map((row) => JSON.parse(row.value));
    return { content: [{ type: 'text', text: JSON.stringify(notes) }] };
  });
  return server;
});
const serve = toNodeHandler(handler);
const validateHost = localhostHostValidation();
const validateOrigin = localhostOriginValidation();

const server = createServer((request, response) => {
  if (!validateHost(request, response) || !validateOrigin(request, response)) return;
  if (request.url !== MCP_PATH) {
    response.writeHead(404).end();
    return;
  }
  // The adapter's request shape is structural and declares `method?: string`, which a Node request's
  // `string | undefined` only fails under this repository's exactOptionalPropertyTypes.
  void serve(request as NodeIncomingMessageLike, response);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const address = server.address();

async function stop(): Promise<void> {
  server.close();
  await handler.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());

announce({
  url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
  mcpPath: MCP_PATH,
});
