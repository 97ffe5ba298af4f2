import { type App, createApp } from './app.js';

/** The bindings the workerd config gives this worker. */
interface Env {
  readonly BASE_URL: string;
  readonly WEBHOOK_SECRET: string;
}

// A worker's global scope may not generate keys or do other I/O, so the app is built on the first request.
let app: Promise<App> | undefined;

/**
 * A workerd module worker. workerd has no module source on disk: only `handle*` webhooks are served. A
 * module worker is a default export by definition, the one exception to the no-default-exports habit.
 */
export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    app ??= createApp({
      baseUrl: env.BASE_URL,
      webhookSecret: env.WEBHOOK_SECRET,
      moduleSourcePath: '/nonexistent/echo-module.ts',
    });
    const ready = await app;
    const ip = request.headers.get('cf-connecting-ip');
    return ready.fetch(request, ip === null ? {} : { ip });
  },
};
