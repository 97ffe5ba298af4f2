import type { Logger, ToolModule } from '@keyhold/core';
import { silentLogger } from '@keyhold/core';
import { type DocumentedMethod, parseDocumentedMethods } from './doc-comments.js';
import { WebhookError } from './errors.js';
import { fileSystemReader, type ReadSource } from './source-files.js';

/**
 * One exposed endpoint: `POST {basePath}/{toolModuleId}/{path}` calls `instance[method]`.
 */
export interface WebhookRoute {
  /** The module's {@link ToolModule.toolModuleId}: the first path segment after the base path. */
  readonly toolModuleId: string;
  /** The method called on the module instance. */
  readonly method: string;
  /** The path after the module segment: the method name, or the tag's custom path. */
  readonly path: string;
  /** `toolModuleId/path`: the route's identity, and the key of per-route signature settings. */
  readonly key: string;
  /** Why the route exists: the method name's `handle` prefix, or a `@webhook` tag (bare or with a path). */
  readonly source: 'handle-prefix' | 'webhook-tag';
}

/** Options of {@link discoverWebhookRoutes}. */
export interface DiscoveryOptions {
  /** Expose methods whose name starts with `handle` without a tag (default `true`). */
  exposeHandlePrefix?: boolean;
  /**
   * Receives a debug line for each module skipped for want of an `instance`, and a warning for each source
   * file that cannot be read (default silent).
   */
  logger?: Logger;
  /**
   * Reads a module's source for its `@webhook` tags. Default: the file at `sourcePath` (through `node:fs`
   * where the runtime has it). On a runtime without a file system, pass the sources you bundled.
   */
  readSource?: ReadSource;
}

// A path segment is made of RFC 3986 unreserved characters, so the URL and the route agree byte for byte.
const SEGMENT = /^[A-Za-z0-9._~-]+$/;
// `handle` followed by the start of the next camelCase word (or a digit / underscore): `handlePush`,
// `handle_push`; not `handler` or `handlebars`.
const HANDLE_PREFIX = /^handle[A-Z0-9_$]/;

function isValidSegment(segment: string): boolean {
  return SEGMENT.test(segment) && segment !== '.' && segment !== '..';
}

/** A module that webhooks can reach: one with an `instance`. */
type WebhookModule = ToolModule & { readonly instance: object };

function describeModule(module: ToolModule): string {
  return `module "${module.toolModuleId}" (${module.displayName})`;
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
  const where = `@webhook tag of ${module.toolModuleId}.${method} (${module.sourcePath}:${line})`;
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
    ? `${route.toolModuleId}.${route.method} (@webhook tag)`
    : `${route.toolModuleId}.${route.method} (handle prefix)`;
}

/**
 * The declarations of a module's source file, read once per file. A file that cannot be read (or a module
 * without a `sourcePath` string, from untyped callers) yields none, so only `handle*` methods are exposed,
 * and a warning says so. A file that never mentions `@webhook` is not parsed at all.
 */
function documentedMethodsOf(
  module: ToolModule,
  parsed: Map<string, DocumentedMethod[]>,
  logger: Logger,
  readSource: ReadSource,
): readonly DocumentedMethod[] {
  const sourcePath: unknown = module.sourcePath;
  if (typeof sourcePath !== 'string') {
    logger.warn(
      { toolModuleId: module.toolModuleId },
      'webhook module has no sourcePath: only handle* methods are exposed',
    );
    return [];
  }
  const cached = parsed.get(sourcePath);
  if (cached !== undefined) return cached;
  let documented: DocumentedMethod[] = [];
  let text: string | undefined;
  try {
    text = readSource(sourcePath);
    if (text === undefined) throw Object.assign(new Error('no source'), { code: 'ENOSOURCE' });
  } catch (error) {
    logger.warn(
      { toolModuleId: module.toolModuleId, sourcePath, code: (error as { code?: unknown }).code },
      'webhook module source cannot be read: only handle* methods are exposed',
    );
  }
  if (text?.includes('@webhook')) documented = parseDocumentedMethods(sourcePath, text);
  parsed.set(sourcePath, documented);
  return documented;
}

/**
 * Lists the webhook routes of a set of tool modules, by the rules of Area D. Routes are keyed by
 * `toolModuleId`: `POST {basePath}/{toolModuleId}/{path}`. A module without an `instance` has no routes
 * (a debug line says so). A method whose name starts with `handle` is exposed at its own name; a method
 * whose doc comment in `sourcePath` carries `@webhook` is exposed, at `@webhook <path>` when the tag names
 * one (one or more segments); a tag takes precedence over the prefix. Each source file is parsed once; one
 * that cannot be read contributes no tags (only `handle*` methods, and a warning). Throws a
 * {@link WebhookError} for a `toolModuleId` that is not one path segment or an invalid tag path
 * (`ERR_INVALID_ROUTE`), a tag on something the instance does not have (`ERR_UNKNOWN_ROUTE`), two methods
 * (or two modules of one `toolModuleId`) claiming one path (`ERR_DUPLICATE_ROUTE`, naming both), or a
 * file that mentions `@webhook` but does not parse as TypeScript or JavaScript (`ERR_SOURCE_UNPARSABLE`).
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
  const logger = options.logger ?? silentLogger;
  const fromFiles = fileSystemReader();
  const readSource: ReadSource = options.readSource ?? ((path) => fromFiles?.(path));
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

  const seen = new Map<string, ToolModule>();
  for (const module of webhookModules(modules, logger)) {
    const sameId = seen.get(module.toolModuleId);
    if (sameId !== undefined) {
      throw new WebhookError(
        'ERR_DUPLICATE_ROUTE',
        `POST /${module.toolModuleId}/… is claimed twice: by ${describeModule(sameId)} and by ${describeModule(module)}`,
      );
    }
    seen.set(module.toolModuleId, module);
    if (!isValidSegment(module.toolModuleId)) {
      throw new WebhookError(
        'ERR_INVALID_ROUTE',
        `${describeModule(module)}: the toolModuleId must be one path segment of letters, digits, ".", "_", "~" and "-"`,
      );
    }
    const names = methodNames(module.instance);
    const tags = new Map<string, { texts: string[]; line: number }>();
    for (const declaration of relevantDeclarations(
      module.instance,
      documentedMethodsOf(module, parsed, logger, readSource),
    )) {
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
    const { toolModuleId } = module;
    for (const method of names) {
      const tagged = tags.get(method);
      if (tagged !== undefined) {
        const paths = new Set(tagged.texts.map((text) => tagPath(module, method, tagged.line, text)));
        for (const path of paths) {
          add({ toolModuleId, method, path, key: `${toolModuleId}/${path}`, source: 'webhook-tag' });
        }
      } else if (exposeHandlePrefix && HANDLE_PREFIX.test(method)) {
        add({
          toolModuleId,
          method,
          path: method,
          key: `${toolModuleId}/${method}`,
          source: 'handle-prefix',
        });
      }
    }
  }
  return routes;
}

/**
 * The modules webhooks can reach: those with an `instance`. The others (modules that only offer MCP tools)
 * are skipped with a debug line.
 */
function webhookModules(modules: readonly ToolModule[], logger: Logger): WebhookModule[] {
  const reachable: WebhookModule[] = [];
  for (const module of modules) {
    if (module.instance === undefined) {
      logger.debug({ toolModuleId: module.toolModuleId }, 'tool module has no instance: no webhook routes');
      continue;
    }
    reachable.push(module as WebhookModule);
  }
  return reachable;
}
