import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeListener, createRouter } from '@keyhold/adapter-node';
import { jsonResult } from '@keyhold/core';
import { pino } from 'pino';
import { readConfig } from './config.js';

const config = readConfig(process.env, process.cwd());
const logger = pino({ level: config.logLevel });
mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });

const router = createRouter().on('GET', '/health', async () => jsonResult(200, { status: 'ok' }));

const server = createServer(createNodeListener(router.handle, { logger }));
server.listen(config.port, config.hostname, () => {
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.hostname}:${port}`;
  logger.info(
    { url, tenant: config.tenant, dataDir: config.dataDir, singleUser: config.singleUser },
    'keyhold example host listening',
  );
  process.stdout.write(`Keyhold example host listening on ${url}\n`);
});

function shutdown(signal: string): void {
  logger.info({ signal }, 'shutting down');
  server.close(() => process.exit(0));
  server.closeIdleConnections();
  setTimeout(() => process.exit(1), 10_000).unref();
}
process.once('SIGINT', () => shutdown('SIGINT'));
process.once('SIGTERM', () => shutdown('SIGTERM'));
