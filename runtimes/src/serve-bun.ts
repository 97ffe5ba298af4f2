import { createApp } from './app.js';

interface BunServer {
  requestIP(request: Request): { address: string } | null;
}
declare const Bun: {
  env: Record<string, string | undefined>;
  serve(options: {
    port: number;
    hostname: string;
    fetch(request: Request, server: BunServer): Promise<Response>;
  }): unknown;
};

const port = Number(Bun.env['PORT']);
const app = await createApp({
  baseUrl: `http://127.0.0.1:${port}`,
  webhookSecret: Bun.env['WEBHOOK_SECRET']!,
  moduleSourcePath: Bun.env['MODULE_SOURCE']!,
});
Bun.serve({
  port,
  hostname: '127.0.0.1',
  fetch: (request, server) => {
    const ip = server.requestIP(request)?.address;
    return app.fetch(request, ip === undefined ? {} : { ip });
  },
});
console.log(JSON.stringify({ ready: 'bun', webhookRoutes: app.webhookRoutes }));
