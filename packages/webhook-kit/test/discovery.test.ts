import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverWebhookRoutes, type ToolModule } from '../src/discovery.js';
import { WebhookError } from '../src/errors.js';
import { createWebhookHandler } from '../src/webhook-handler.js';
import { BadPathModule } from './fixtures/bad-path-module.js';
import { BadTagModule } from './fixtures/bad-tag-module.js';
import { ClashingModule } from './fixtures/clashing-module.js';
import { fixturePath, githubModule } from './fixtures/modules.js';
import { PrefixClashModule } from './fixtures/prefix-clash-module.js';
import { StaleTagModule } from './fixtures/stale-tag-module.js';

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
      createWebhookHandler({
        modules: [
          {
            id: 'm1',
            name: 'events',
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
          id: 'm1',
          name: 'repo',
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
          id: 'm1',
          name: 'repo',
          sourcePath: fixturePath('prefix-clash-module.ts'),
          instance: new PrefixClashModule(),
        },
      ],
      { exposeHandlePrefix: false },
    );
    expect(routes.map((route) => `${route.key}→${route.method}`)).toEqual(['repo/handlePush→push']);
  });

  it('refuses two modules with one name, naming both ids', () => {
    const error = thrown(() =>
      discoverWebhookRoutes([githubModule(), { ...githubModule(), id: 'mod_other' }]),
    );
    expect(error.code).toBe('ERR_DUPLICATE_ROUTE');
    expect(error.message).toContain('mod_github');
    expect(error.message).toContain('mod_other');
  });
});

describe('registration: tags and names must make valid paths', () => {
  it('refuses a tag that holds more than one path', () => {
    const error = thrown(() =>
      discoverWebhookRoutes([
        { id: 'm', name: 'gh', sourcePath: fixturePath('bad-tag-module.ts'), instance: new BadTagModule() },
      ]),
    );
    expect(error.code).toBe('ERR_INVALID_ROUTE');
    expect(error.message).toContain('gh.onPush');
    expect(error.message).toContain('bad-tag-module.ts:3');
  });

  it('refuses dot segments in a tag path', () => {
    const error = thrown(() =>
      discoverWebhookRoutes([
        { id: 'm', name: 'gh', sourcePath: fixturePath('bad-path-module.ts'), instance: new BadPathModule() },
      ]),
    );
    expect(error.code).toBe('ERR_INVALID_ROUTE');
    expect(error.message).toContain('github/../admin');
  });

  it('refuses a module name that is not one path segment', () => {
    for (const name of ['a/b', '', '..', 'with space']) {
      const error = thrown(() => discoverWebhookRoutes([{ id: 'm', name, instance: {} }]));
      expect(error.code, name).toBe('ERR_INVALID_ROUTE');
    }
  });

  it('refuses a tag on something the instance does not have', () => {
    const error = thrown(() =>
      discoverWebhookRoutes([
        {
          id: 'm',
          name: 'stale',
          sourcePath: fixturePath('stale-tag-module.ts'),
          instance: new StaleTagModule(),
        },
      ]),
    );
    expect(error.code).toBe('ERR_UNKNOWN_ROUTE');
    expect(error.message).toContain('"create"');
  });

  it('refuses an unreadable source file', () => {
    const error = thrown(() =>
      discoverWebhookRoutes([{ id: 'm', name: 'gone', sourcePath: fixturePath('missing.ts'), instance: {} }]),
    );
    expect(error.code).toBe('ERR_SOURCE_UNREADABLE');
  });
});

describe('discovery: modules without a source file', () => {
  it('exposes only handle* methods, own and inherited, of a module without sourcePath', () => {
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
    const plain: ToolModule = {
      id: 'm',
      name: 'plain',
      instance: Object.assign(new Child(), { handleArrow: () => 'arrow', handleValue: 3 }),
    };
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
    expect(discoverWebhookRoutes([{ id: 'm', name: 'lazy', instance }])).toEqual([]);
    expect(ran).toBe(false);
  });
});

describe('options: validated once at creation', () => {
  it('refuses an empty secret, which would let an empty header through', () => {
    expect(thrown(() => createWebhookHandler({ modules: [], secret: '' })).code).toBe('ERR_INVALID_OPTIONS');
  });

  it('refuses a body limit that is not a positive integer', () => {
    for (const bodyLimitBytes of [0, -1, 1.5, Number.NaN]) {
      expect(thrown(() => createWebhookHandler({ modules: [], bodyLimitBytes })).code).toBe(
        'ERR_INVALID_OPTIONS',
      );
    }
  });

  it('refuses signature settings for a route that does not exist, listing the routes', () => {
    const error = thrown(() =>
      createWebhookHandler({
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
        createWebhookHandler({
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
    const handler = createWebhookHandler({
      modules: [{ id: 'd', name: 'deploys', sourcePath, instance: new Deploys() }],
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
    const routes = discoverWebhookRoutes([{ id: 'a', name: 'alias', sourcePath, instance: new Alias() }]);
    expect(routes.map((route) => `${route.key}→${route.method}`)).toEqual([
      'alias/v1/push→push',
      'alias/v2/push→push',
    ]);
  });
});
