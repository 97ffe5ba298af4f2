import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolModule } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import { discoverWebhookRoutes } from '../src/discovery.js';
import { WebhookError } from '../src/errors.js';
import { createWebhookHandlerWithHandle } from '../src/webhook-handler.js';
import { BadPathModule } from './fixtures/bad-path-module.js';
import { BadTagModule } from './fixtures/bad-tag-module.js';
import { ClashingModule } from './fixtures/clashing-module.js';
import { billingModule, fixturePath, githubModule } from './fixtures/modules.js';
import { PrefixClashModule } from './fixtures/prefix-clash-module.js';
import { StaleTagModule } from './fixtures/stale-tag-module.js';
import { recordingLogger } from './support/serve.js';

/** A module whose source file carries no tag (the fixture helpers), so only `handle*` methods count. */
function untagged(toolModuleId: string, instance?: object): ToolModule {
  return {
    toolModuleId,
    displayName: toolModuleId.toUpperCase(),
    sourcePath: fixturePath('modules.ts'),
    ...(instance !== undefined ? { instance } : {}),
  };
}

function thrown(run: () => unknown): WebhookError {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookError) return error;
    throw error;
  }
  throw new Error('expected a WebhookError');
}

describe('registration: two routes claiming one path is an error naming both', () => {
  it('refuses two tags with one path (slashes around a tag path do not make it different)', () => {
    const error = thrown(() =>
      createWebhookHandlerWithHandle({
        modules: [
          {
            toolModuleId: 'events',
            displayName: 'Events',
            sourcePath: fixturePath('clashing-module.ts'),
            instance: new ClashingModule(),
          },
        ],
      }),
    );
    expect(error.code).toBe('ERR_DUPLICATE_ROUTE');
    expect(error.message).toContain('POST /events/events/push');
    expect(error.message).toContain('events.first');
    expect(error.message).toContain('events.second');
  });

  it('refuses a tag path that equals another method reached by its prefix', () => {
    const error = thrown(() =>
      discoverWebhookRoutes([
        {
          toolModuleId: 'repo',
          displayName: 'Repo',
          sourcePath: fixturePath('prefix-clash-module.ts'),
          instance: new PrefixClashModule(),
        },
      ]),
    );
    expect(error.code).toBe('ERR_DUPLICATE_ROUTE');
    expect(error.message).toContain('repo.handlePush (handle prefix)');
    expect(error.message).toContain('repo.push (@webhook tag)');
  });

  it('accepts the same module layout once the prefix is turned off', () => {
    const routes = discoverWebhookRoutes(
      [
        {
          toolModuleId: 'repo',
          displayName: 'Repo',
          sourcePath: fixturePath('prefix-clash-module.ts'),
          instance: new PrefixClashModule(),
        },
      ],
      { exposeHandlePrefix: false },
    );
    expect(routes.map((route) => `${route.key}→${route.method}`)).toEqual(['repo/handlePush→push']);
  });

  it('refuses two modules with one toolModuleId, naming both', () => {
    const error = thrown(() =>
      discoverWebhookRoutes([githubModule(), { ...githubModule(), displayName: 'GitHub Enterprise' }]),
    );
    expect(error.code).toBe('ERR_DUPLICATE_ROUTE');
    expect(error.message).toContain('POST /github/');
    expect(error.message).toContain('(GitHub)');
    expect(error.message).toContain('(GitHub Enterprise)');
  });

  it('lets a module without an instance share a toolModuleId: it claims no path', () => {
    const { instance: _dropped, ...toolsOnly } = githubModule();
    expect(() => discoverWebhookRoutes([githubModule(), toolsOnly])).not.toThrow();
  });
});

describe('registration: tags and toolModuleIds must make valid paths', () => {
  it('refuses a tag that holds more than one path', () => {
    const error = thrown(() =>
      discoverWebhookRoutes([
        {
          toolModuleId: 'gh',
          displayName: 'Gh',
          sourcePath: fixturePath('bad-tag-module.ts'),
          instance: new BadTagModule(),
        },
      ]),
    );
    expect(error.code).toBe('ERR_INVALID_ROUTE');
    expect(error.message).toContain('gh.onPush');
    expect(error.message).toContain('bad-tag-module.ts:3');
  });

  it('refuses dot segments in a tag path', () => {
    const error = thrown(() =>
      discoverWebhookRoutes([
        {
          toolModuleId: 'gh',
          displayName: 'Gh',
          sourcePath: fixturePath('bad-path-module.ts'),
          instance: new BadPathModule(),
        },
      ]),
    );
    expect(error.code).toBe('ERR_INVALID_ROUTE');
    expect(error.message).toContain('github/../admin');
  });

  it('refuses a toolModuleId that is not one path segment', () => {
    for (const toolModuleId of ['a/b', '', '..', 'with space']) {
      const error = thrown(() => discoverWebhookRoutes([untagged(toolModuleId, {})]));
      expect(error.code, toolModuleId).toBe('ERR_INVALID_ROUTE');
      expect(error.message, toolModuleId).toContain('toolModuleId');
    }
  });

  it('refuses a tag on something the instance does not have', () => {
    const error = thrown(() =>
      discoverWebhookRoutes([
        {
          toolModuleId: 'stale',
          displayName: 'Stale',
          sourcePath: fixturePath('stale-tag-module.ts'),
          instance: new StaleTagModule(),
        },
      ]),
    );
    expect(error.code).toBe('ERR_UNKNOWN_ROUTE');
    expect(error.message).toContain('"create"');
  });
});

describe('discovery: routes are keyed by toolModuleId', () => {
  it('uses toolModuleId as the first segment of every route and its key, never displayName', () => {
    const routes = discoverWebhookRoutes([githubModule(), billingModule()]);
    expect(routes.length).toBeGreaterThan(0);
    for (const route of routes) {
      expect(route.key).toBe(`${route.toolModuleId}/${route.path}`);
      expect(['github', 'billing']).toContain(route.toolModuleId);
    }
    expect(routes.find((route) => route.method === 'onPush')).toEqual({
      toolModuleId: 'github',
      method: 'onPush',
      path: 'github/push',
      key: 'github/github/push',
      source: 'webhook-tag',
    });
  });

  it('serves a route at /webhook/<toolModuleId>/<path>', async () => {
    const handler = createWebhookHandlerWithHandle({
      modules: [untagged('hooks-v2', { handlePing: () => 'pong' })],
    });
    const request = { method: 'POST', query: '', headers: {}, body: '' };
    const result = await handler({ ...request, path: '/webhook/hooks-v2/handlePing' });
    expect(result.status).toBe(200);
    expect(JSON.parse(result.body ?? '')).toEqual({ ok: true, result: 'pong' });
    expect((await handler({ ...request, path: '/webhook/HOOKS-V2/handlePing' })).status).toBe(404);
  });
});

describe('discovery: a module without an instance has no routes', () => {
  it('skips it, with a debug line naming its toolModuleId', () => {
    const logger = recordingLogger();
    const routes = discoverWebhookRoutes([untagged('tools-only'), untagged('plain', { handleX: () => 1 })], {
      logger,
    });
    expect(routes.map((route) => route.key)).toEqual(['plain/handleX']);
    expect(logger.lines).toContainEqual(
      expect.objectContaining({ level: 'debug', fields: { toolModuleId: 'tools-only' } }),
    );
  });

  it('answers 404 under its id, and passes the tag checks of its file', async () => {
    // A file whose tags name methods this (absent) instance lacks is never read for a module without one.
    const handler = createWebhookHandlerWithHandle({
      modules: [
        {
          toolModuleId: 'stale',
          displayName: 'Stale',
          sourcePath: fixturePath('stale-tag-module.ts'),
        },
      ],
    });
    expect(handler.routes).toEqual([]);
    const request = { method: 'POST', query: '', headers: {}, body: '' };
    expect((await handler({ ...request, path: '/webhook/stale/create' })).status).toBe(404);
  });
});

describe('discovery: a source file that cannot be read exposes only handle* methods', () => {
  it('keeps the handle* routes and warns, naming the module and the file', () => {
    const logger = recordingLogger();
    const sourcePath = fixturePath('missing.ts');
    const routes = discoverWebhookRoutes(
      [
        {
          toolModuleId: 'gone',
          displayName: 'Gone',
          sourcePath,
          instance: { handlePing: () => 'pong', onPush: () => 'push' },
        },
      ],
      { logger },
    );
    expect(routes.map((route) => `${route.key} ${route.source}`)).toEqual(['gone/handlePing handle-prefix']);
    expect(logger.lines).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        fields: expect.objectContaining({ toolModuleId: 'gone', sourcePath, code: 'ENOENT' }),
      }),
    );
  });

  it('treats a module without a sourcePath string (an untyped caller) the same way', () => {
    const module = { toolModuleId: 'js', displayName: 'JS', instance: { handlePing: () => 'pong' } };
    const routes = discoverWebhookRoutes([module as unknown as ToolModule]);
    expect(routes.map((route) => route.key)).toEqual(['js/handlePing']);
  });
});

describe('discovery: modules whose source tags nothing', () => {
  it('exposes only handle* methods, own and inherited', () => {
    class Base {
      handleInherited(): string {
        return 'base';
      }
    }
    class Child extends Base {
      handleOwn(): string {
        return 'own';
      }
      other(): string {
        return 'other';
      }
    }
    const plain = untagged(
      'plain',
      Object.assign(new Child(), { handleArrow: () => 'arrow', handleValue: 3 }),
    );
    expect(
      discoverWebhookRoutes([plain])
        .map((route) => route.path)
        .sort(),
    ).toEqual(['handleArrow', 'handleInherited', 'handleOwn']);
  });

  it('never runs a getter while looking for methods', () => {
    let ran = false;
    const instance = {
      get handleLazy(): () => string {
        ran = true;
        return () => 'lazy';
      },
    };
    expect(discoverWebhookRoutes([untagged('lazy', instance)])).toEqual([]);
    expect(ran).toBe(false);
  });
});

describe('options: validated once at creation', () => {
  it('refuses an empty secret, which would let an empty header through', () => {
    expect(thrown(() => createWebhookHandlerWithHandle({ modules: [], secret: '' })).code).toBe(
      'ERR_INVALID_OPTIONS',
    );
  });

  it('refuses a body limit that is not a positive integer', () => {
    for (const bodyLimitBytes of [0, -1, 1.5, Number.NaN]) {
      expect(thrown(() => createWebhookHandlerWithHandle({ modules: [], bodyLimitBytes })).code).toBe(
        'ERR_INVALID_OPTIONS',
      );
    }
  });

  it('refuses signature settings for a route that does not exist, listing the routes', () => {
    const error = thrown(() =>
      createWebhookHandlerWithHandle({
        modules: [githubModule()],
        signatures: { 'github/githup/push': { scheme: 'github', secrets: ['s'] } },
      }),
    );
    expect(error.code).toBe('ERR_UNKNOWN_ROUTE');
    expect(error.message).toContain('github/github/push');
  });

  it('refuses signature settings without secrets or with a bad tolerance', () => {
    const bad = [
      { scheme: 'github', secrets: [] },
      { scheme: 'stripe', secrets: ['whsec_x'], toleranceSeconds: -5 },
      { scheme: 'standard-webhooks', secrets: ['whsec_not-base64!'] },
      { scheme: 'standard-webhooks', secrets: [`whsec_${Buffer.alloc(8).toString('base64')}`] },
      { scheme: 'carrier-pigeon', secrets: ['s'] },
    ] as const;
    for (const config of bad) {
      const error = thrown(() =>
        createWebhookHandlerWithHandle({
          modules: [githubModule()],
          signatures: { 'github/github/push': config as never },
        }),
      );
      expect(error.code, JSON.stringify(config)).toBe('ERR_INVALID_OPTIONS');
    }
  });
});

describe('discovery: each source file is parsed once, at registration', () => {
  it('keeps serving the routes it found even if the file changes afterwards', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webhook-kit-'));
    const sourcePath = join(dir, 'deploys.ts');
    writeFileSync(
      sourcePath,
      'export class Deploys {\n  /** @webhook deploy/started */\n  started() {}\n}\n',
    );
    class Deploys {
      started(): string {
        return 'started';
      }
    }
    const handler = createWebhookHandlerWithHandle({
      modules: [{ toolModuleId: 'deploys', displayName: 'Deploys', sourcePath, instance: new Deploys() }],
    });
    writeFileSync(sourcePath, 'export class Deploys {\n  /** @webhook other/path */\n  started() {}\n}\n');
    const request = { method: 'POST', query: '', headers: {}, body: '' };
    expect((await handler({ ...request, path: '/webhook/deploys/deploy/started' })).status).toBe(200);
    expect((await handler({ ...request, path: '/webhook/deploys/other/path' })).status).toBe(404);
  });

  it('exposes a method once per @webhook tag it carries', () => {
    const dir = mkdtempSync(join(tmpdir(), 'webhook-kit-'));
    const sourcePath = join(dir, 'alias.ts');
    writeFileSync(
      sourcePath,
      'export class Alias {\n  /**\n   * @webhook v1/push\n   * @webhook v2/push\n   */\n  push() {}\n}\n',
    );
    class Alias {
      push(): string {
        return 'push';
      }
    }
    const routes = discoverWebhookRoutes([
      { toolModuleId: 'alias', displayName: 'Alias', sourcePath, instance: new Alias() },
    ]);
    expect(routes.map((route) => `${route.key}→${route.method}`)).toEqual([
      'alias/v1/push→push',
      'alias/v2/push→push',
    ]);
  });
});

describe('discovery: a source file that cannot be parsed', () => {
  it('fails creation when it mentions @webhook, naming the file (no silently dropped routes)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'webhook-kit-'));
    const sourcePath = join(dir, 'broken.ts');
    writeFileSync(sourcePath, 'export class Broken {\n  /** @webhook x */\n  x( {\n}\n');
    const error = thrown(() =>
      createWebhookHandlerWithHandle({
        modules: [{ toolModuleId: 'broken', displayName: 'Broken', sourcePath, instance: { x: () => 1 } }],
      }),
    );
    expect(error.code).toBe('ERR_SOURCE_UNPARSABLE');
    expect(error.message).toContain(sourcePath);
  });

  it('is never parsed when it does not mention @webhook: its handle* methods are served', () => {
    const dir = mkdtempSync(join(tmpdir(), 'webhook-kit-'));
    const sourcePath = join(dir, 'broken.ts');
    writeFileSync(sourcePath, 'export class Broken {\n  handlePing( {\n}\n');
    const routes = discoverWebhookRoutes([
      { toolModuleId: 'broken', displayName: 'Broken', sourcePath, instance: { handlePing: () => 1 } },
    ]);
    expect(routes.map((route) => route.key)).toEqual(['broken/handlePing']);
  });
});
