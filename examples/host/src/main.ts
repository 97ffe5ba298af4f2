import { mkdirSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NodeAdapterError, type RunningServer, serve } from '@keyhold/adapter-node';
import { pino } from 'pino';
import { createHostApp, type HostApp } from './app.js';
import { readConfig } from './config.js';
import { isLoopback } from './loopback.js';
import { startMetricsExport } from './telemetry.js';

const config = readConfig(process.env, process.cwd());

function refuseToStart(message: string): never {
  process.stderr.write(`keyhold example host: ${message}\n`);
  process.exit(1);
}

const loopback = isLoopback(config.hostname);
// Single-user mode skips login: whoever reaches the server is the tenant owner. That is safe on loopback only.
if (config.singleUser && !loopback && !config.allowSingleUserOnNetwork) {
  refuseToStart(
    `single-user mode (SVC_SINGLE_USER=1) is for loopback only, but HOST=${config.hostname} exposes it to the ` +
      'network, where anyone who reaches it acts as the tenant owner. Bind to 127.0.0.1, turn single-user ' +
      'mode off, or set KEYHOLD_ALLOW_SINGLE_USER_ON_NETWORK=1 if you really mean it.',
  );
}
const logger = pino({ level: config.logLevel });
// Registered before anything counts, so the first requests' counters are exported too.
const metricsExport = await startMetricsExport(config.otlpMetrics, logger);
mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
// dist/main.js → the package root, where tools/ lives.
const hostRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

// The issuer must be the URL clients reach, which with PORT=0 is known only once bound: bind first,
// then assemble, and answer 503 in the moment between.
let app: HostApp | undefined;
// Host validation (DNS rebinding): besides the loopback names serve() allows when bound to loopback, the
// host of the public URL and any proxy names from KEYHOLD_ALLOWED_HOSTS.
let running: RunningServer;
try {
  const allowedHosts = [...(config.publicUrl ? [config.publicUrl] : []), ...config.allowedHosts];
  running = await serve(
    (request: IncomingMessage, response: ServerResponse) => {
      if (app) return app.listener(request, response);
      response.writeHead(503, { 'retry-after': '1' }).end();
    },
    {
      port: config.port,
      hostname: config.hostname,
      // Off loopback serve() requires a list: an empty one would refuse every request, so say so instead.
      ...(allowedHosts.length > 0 || loopback ? { allowedHosts } : {}),
      // @keyhold/mcp checks Host itself with the same names and answers a foreign one with 403 and a
      // JSON-RPC error, as MCP clients expect; every other path gets 421 here.
      selfGuardedPaths: [`/tenant/${config.tenant}/mcp`],
      logger,
      // The meter provider last: its final export carries what closing the app counted.
      onClose: [() => app?.close(), () => metricsExport?.shutdown()],
    },
  );
} catch (error) {
  refuseToStart(
    error instanceof NodeAdapterError && error.code === 'ERR_INVALID_OPTIONS' && !loopback
      ? `HOST=${config.hostname} is not loopback: set KEYHOLD_PUBLIC_URL or KEYHOLD_ALLOWED_HOSTS to the host names clients use (${error.message})`
      : String(error instanceof Error ? error.message : error),
  );
}
const baseUrl = config.publicUrl ?? running.url;
try {
  app = await createHostApp({ config, env: process.env, baseUrl, hostRoot, logger });
} catch (error) {
  await running.close();
  const message = error instanceof Error ? error.message : String(error);
  refuseToStart(
    /must use https/.test(message)
      ? `the issuer ${baseUrl} must be https off 127.0.0.1 and localhost: set KEYHOLD_PUBLIC_URL=https://<the name clients use> (${message})`
      : message,
  );
}
logger.info(
  {
    url: baseUrl,
    tenant: config.tenant,
    dataDir: config.dataDir,
    singleUser: config.singleUser,
    allowedHosts: running.allowedHosts,
  },
  'keyhold example host listening',
);
process.stdout.write(`Keyhold example host listening on ${baseUrl}\n`);
process.stdout.write(`  MCP endpoint:  ${baseUrl}/tenant/${config.tenant}/mcp\n`);
process.stdout.write(`  Issuer:        ${app.oauth.issuer(config.tenant)}\n`);
// Where a person sees which applications may act for them and revokes one.
process.stdout.write(`  Connected apps: ${app.oauth.issuer(config.tenant)}/connected-apps\n`);
if (config.singleUser) {
  process.stdout.write(
    loopback
      ? '  Single-user mode: no login, every browser on this machine is the tenant owner (meant for loopback only).\n'
      : `  WARNING: single-user mode on ${config.hostname}: anyone who reaches this address is the tenant owner. Single-user mode is meant for loopback only.\n`,
  );
}

function shutdown(signal: string): void {
  logger.info({ signal }, 'shutting down');
  running.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
}
process.once('SIGINT', () => shutdown('SIGINT'));
process.once('SIGTERM', () => shutdown('SIGTERM'));
