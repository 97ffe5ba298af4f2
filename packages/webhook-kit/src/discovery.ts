import { type DocumentedMethod, readDocumentedMethods } from './doc-comments.js';
import { WebhookError } from './errors.js';

/**
 * A tool module as the host knows it. Described structurally so any host's module record fits.
 *
 * @example
 * ```ts
 * const github: ToolModule = {
 *   id: 'mod_github', name: 'github',
 *   sourcePath: fileURLToPath(new URL('./modules/github.ts', import.meta.url)),
 *   instance: new GitHubModule(),
 * };
 * ```
 */
export interface ToolModule {
  /** The tool-module id (the host's stable identifier; used in logs). */
  readonly id: string;
  /** The module name: the `<module>` segment of `/webhook/<module>/…`. */
  readonly name: string;
  /**
   * The module's source file (TypeScript or JavaScript) whose doc comments carry `@webhook` tags. Without
   * it only `handle*` methods are exposed.
   */
  readonly sourcePath?: string;
  /** The object whose methods are called: a class instance, an object literal or a module namespace. */
  readonly instance: object;
}

/** Why a route exists: the method name's `handle` prefix, or a `@webhook` tag (bare or with a path). */
export type WebhookRouteSource = 'handle-prefix' | 'webhook-tag';

/**
 * One exposed endpoint: `POST {basePath}/{module}/{path}` calls `instance[method]`.
 *
 * @example
 * ```ts
 * { module: 'github', moduleId: 'mod_github', method: 'onPush', path: 'github/push',
 *   key: 'github/github/push', source: 'webhook-tag' }
 * ```
 */
export interface WebhookRoute {
  /** The module name (first path segment after the base path). */
  readonly module: string;
  /** The module id. */
  readonly moduleId: string;
  /** The method called on the module instance. */
  readonly method: string;
  /** The path after the module segment: the method name, or the tag's custom path. */
  readonly path: string;
  /** `module/path`: the route's identity, and the key of per-route signature settings. */
  readonly key: string;
  /** Why the route exists. */
  readonly source: WebhookRouteSource;
}

/** Options of {@link discoverWebhookRoutes}. */
export interface DiscoveryOptions {
  /** Expose methods whose name starts with `handle` without a tag (default `true`). */
  exposeHandlePrefix?: boolean;
}

// A path segment is made of RFC 3986 unreserved characters, so the URL and the route agree byte for byte.
const SEGMENT = /^[A-Za-z0-9._~-]+$/;
// `handle` followed by the start of the next camelCase word (or a digit / underscore): `handlePush`,
// `handle_push`; not `handler` or `handlebars`.
const HANDLE_PREFIX = /^handle[A-Z0-9_$]/;

function isValidSegment(segment: string): boolean {
  return SEGMENT.test(segment) && segment !== '.' && segment !== '..';
}

function describeModule(module: ToolModule): string {
  return `module "${module.name}" (${module.id})`;
}

/** The callable members of an instance: own and inherited, stopping before the built-in prototypes. */
function methodNames(instance: object): string[] {
  const names = new Set<string>();
  for (
    let target: object | null = instance;
    target !== null && target !== Object.prototype && target !== Function.prototype;
    target = Object.getPrototypeOf(target)
  ) {
    for (const name of Object.getOwnPropertyNames(target)) {
      if (name === 'constructor' || names.has(name)) continue;
      // Read the descriptor, never the property, so a getter is not run at registration.
      const descriptor = Object.getOwnPropertyDescriptor(target, name);
      if (typeof descriptor?.value === 'function') names.add(name);
    }
  }
  return [...names];
}

/**
 * Picks the declarations that describe this instance: those of the class the instance was built from
 * when the file declares it, otherwise every method-like declaration in the file (object literals,
 * functions, module namespaces).
 */
function relevantDeclarations(instance: object, documented: readonly DocumentedMethod[]): DocumentedMethod[] {
  const constructorName = (instance as { constructor?: { name?: unknown } }).constructor?.name;
  if (typeof constructorName === 'string' && constructorName !== 'Object') {
    const ofClass = documented.filter((method) => method.className === constructorName);
    if (ofClass.length > 0) return ofClass;
  }
  return [...documented];
}

/** Turns the text of a `@webhook` tag into the route path (`''` → the method name). */
function tagPath(module: ToolModule, method: string, line: number, text: string): string {
  if (text === '') return method;
  const where = `@webhook tag of ${module.name}.${method} (${module.sourcePath}:${line})`;
  if (/\s/.test(text)) {
    throw new WebhookError(
      'ERR_INVALID_ROUTE',
      `${where} must hold one path and nothing else, got "${text}"`,
    );
  }
  // Leading and trailing slashes are tolerated (`/github/push/`), so the tag may be written as a URL path.
  const segments = text.replace(/^\/+|\/+$/g, '').split('/');
  if (!segments.every(isValidSegment)) {
    throw new WebhookError(
      'ERR_INVALID_ROUTE',
      `${where} has an invalid path "${text}": segments of letters, digits, ".", "_", "~" and "-" only`,
    );
  }
  return segments.join('/');
}

function describeRoute(route: WebhookRoute): string {
  return route.source === 'webhook-tag'
    ? `${route.module}.${route.method} (@webhook tag)`
    : `${route.module}.${route.method} (handle prefix)`;
}

/**
 * Lists the webhook routes of a set of tool modules, by the rules of Area D: a method whose name starts
 * with `handle` is exposed at its own name; a method whose doc comment carries `@webhook` is exposed,
 * at `@webhook <path>` when the tag names one (one or more segments); a tag takes precedence over the
 * prefix. Each source file is parsed once. Throws a {@link WebhookError} for an invalid module name or
 * tag path (`ERR_INVALID_ROUTE`), a tag on something the instance does not have (`ERR_UNKNOWN_ROUTE`), or
 * two methods (or two modules of one name) claiming one path (`ERR_DUPLICATE_ROUTE`, naming both).
 *
 * @example
 * ```ts
 * const routes = discoverWebhookRoutes([github], { exposeHandlePrefix: true });
 * routes.map((r) => r.key); // ['github/github/push', 'github/handlePing']
 * ```
 */
export function discoverWebhookRoutes(
  modules: readonly ToolModule[],
  options: DiscoveryOptions = {},
): WebhookRoute[] {
  const exposeHandlePrefix = options.exposeHandlePrefix ?? true;
  const parsed = new Map<string, DocumentedMethod[]>();
  const byKey = new Map<string, WebhookRoute>();
  const routes: WebhookRoute[] = [];

  function add(route: WebhookRoute): void {
    const existing = byKey.get(route.key);
    if (existing !== undefined) {
      throw new WebhookError(
        'ERR_DUPLICATE_ROUTE',
        `POST /${route.key} is claimed twice: by ${describeRoute(existing)} and by ${describeRoute(route)}`,
      );
    }
    byKey.set(route.key, route);
    routes.push(route);
  }

  const moduleIds = new Map<string, string>();
  for (const module of modules) {
    const sameName = moduleIds.get(module.name);
    if (sameName !== undefined) {
      throw new WebhookError(
        'ERR_DUPLICATE_ROUTE',
        `POST /${module.name}/… is claimed twice: by module ${sameName} and by module ${module.id}`,
      );
    }
    moduleIds.set(module.name, module.id);
    if (!isValidSegment(module.name)) {
      throw new WebhookError(
        'ERR_INVALID_ROUTE',
        `${describeModule(module)}: the name must be one path segment of letters, digits, ".", "_", "~" and "-"`,
      );
    }
    const names = methodNames(module.instance);
    const tags = new Map<string, { texts: string[]; line: number }>();
    if (module.sourcePath !== undefined) {
      let documented = parsed.get(module.sourcePath);
      if (documented === undefined) {
        documented = readDocumentedMethods(module.sourcePath);
        parsed.set(module.sourcePath, documented);
      }
      for (const declaration of relevantDeclarations(module.instance, documented)) {
        if (declaration.webhookTags.length === 0) continue;
        if (!names.includes(declaration.name)) {
          throw new WebhookError(
            'ERR_UNKNOWN_ROUTE',
            `${module.sourcePath}:${declaration.line} tags "${declaration.name}" with @webhook, but ${describeModule(module)} has no such method`,
          );
        }
        // Overload signatures and their implementation are one method: their tags add up.
        const entry = tags.get(declaration.name) ?? { texts: [], line: declaration.line };
        entry.texts.push(...declaration.webhookTags);
        tags.set(declaration.name, entry);
      }
    }
    for (const method of names) {
      const tagged = tags.get(method);
      if (tagged !== undefined) {
        const paths = new Set(tagged.texts.map((text) => tagPath(module, method, tagged.line, text)));
        for (const path of paths) {
          add({
            module: module.name,
            moduleId: module.id,
            method,
            path,
            key: `${module.name}/${path}`,
            source: 'webhook-tag',
          });
        }
      } else if (exposeHandlePrefix && HANDLE_PREFIX.test(method)) {
        add({
          module: module.name,
          moduleId: module.id,
          method,
          path: method,
          key: `${module.name}/${method}`,
          source: 'handle-prefix',
        });
      }
    }
  }
  return routes;
}
