import { createServer } from 'node:http';
import { toNodeListener } from '@keyhold/adapter-node';
import { createApp } from './app.js';

const port = Number(process.env['PORT']);
const app = await createApp({
  baseUrl: `http://127.0.0.1:${port}`,
  webhookSecret: process.env['WEBHOOK_SECRET']!,
  moduleSourcePath: process.env['MODULE_SOURCE']!,
});
const server = createServer(toNodeListener(app.fetch, {}));
server.listen(port, '127.0.0.1', () => {
  console.log(JSON.stringify({ ready: 'node', webhookRoutes: app.webhookRoutes }));
});
