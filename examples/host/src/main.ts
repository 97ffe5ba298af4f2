import { mkdirSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '@keyhold/adapter-node';
import { pino } from 'pino';
import { createHostApp, type HostApp } from './app.js';
import { readConfig } from './config.js';
import { loadSecrets } from './secrets.js';

const config = readConfig(process.env, process.cwd());
const logger = pino({ level: config.logLevel });
mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
const secrets = loadSecrets(config.dataDir, process.env);
// dist/main.js → the package root, where tools/ lives.
const hostRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

// The issuer must be the URL clients reach, which with PORT=0 is known only once bound: bind first,
// then assemble, and answer 503 in the moment between.
let app: HostApp | undefined;
const running = await serve(
  (request: IncomingMessage, response: ServerResponse) => {
    if (app) return app.listener(request, response);
    response.writeHead(503, { 'retry-after': '1' }).end();
  },
  {
    port: config.port,
    hostname: config.hostname,
    logger,
    onClose: [() => app?.close()],
  },
);
const baseUrl = config.publicUrl ?? running.url;
app = await createHostApp({ config, secrets, baseUrl, hostRoot, logger });
logger.info(
  { url: baseUrl, tenant: config.tenant, dataDir: config.dataDir, singleUser: config.singleUser },
  'keyhold example host listening',
);
process.stdout.write(`Keyhold example host listening on ${baseUrl}\n`);
process.stdout.write(`  MCP endpoint:  ${baseUrl}/tenant/${config.tenant}/mcp\n`);
process.stdout.write(`  Issuer:        ${app.oauth.issuer(config.tenant)}\n`);

function shutdown(signal: string): void {
  logger.info({ signal }, 'shutting down');
  running.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
}
process.once('SIGINT', () => shutdown('SIGINT'));
process.once('SIGTERM', () => shutdown('SIGTERM'));
