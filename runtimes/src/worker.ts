import { type App, createApp } from './app.js';

/** The tool module's source text, put into the bundle at build time (workerd has no files to read). */
declare const ECHO_MODULE_SOURCE: string;
const BUNDLED_SOURCE_PATH = '/bundled/echo-module.ts';

/** The bindings the workerd config gives this worker. */
interface Env {
  readonly BASE_URL: string;
  readonly WEBHOOK_SECRET: string;
}

// A worker's global scope may not generate keys or do other I/O, so the app is built on the first request.
let app: Promise<App> | undefined;

/**
 * A workerd module worker. Its tool module's source comes bundled, so `@webhook` tags are discovered as on
 * the other runtimes. A
 * module worker is a default export by definition, the one exception to the no-default-exports habit.
 */
export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    app ??= createApp({
      baseUrl: env.BASE_URL,
      webhookSecret: env.WEBHOOK_SECRET,
      moduleSourcePath: BUNDLED_SOURCE_PATH,
      readSource: (path) => (path === BUNDLED_SOURCE_PATH ? ECHO_MODULE_SOURCE : undefined),
    });
    const ready = await app;
    const ip = request.headers.get('cf-connecting-ip');
    return ready.fetch(request, ip === null ? {} : { ip });
  },
};
