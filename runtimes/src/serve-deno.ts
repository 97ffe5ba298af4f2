import { createApp } from './app.js';

declare const Deno: {
  env: { get(name: string): string | undefined };
  serve(
    options: { port: number; hostname: string; onListen?: () => void },
    handler: (request: Request, info: { remoteAddr: { hostname: string } }) => Promise<Response>,
  ): unknown;
};

const port = Number(Deno.env.get('PORT'));
const app = await createApp({
  baseUrl: `http://127.0.0.1:${port}`,
  webhookSecret: Deno.env.get('WEBHOOK_SECRET')!,
  moduleSourcePath: Deno.env.get('MODULE_SOURCE')!,
});
Deno.serve(
  {
    port,
    hostname: '127.0.0.1',
    onListen: () => console.log(JSON.stringify({ ready: 'deno', webhookRoutes: app.webhookRoutes })),
  },
  (request, info) => app.fetch(request, { ip: info.remoteAddr.hostname }),
);
