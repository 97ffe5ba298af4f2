import { describe, expect, it } from 'vitest';
import {
  type Area,
  compose,
  RAW_HANDLER,
  type RawArea,
  type RawHandler,
  rawHandlerOf,
} from '../src/index.js';

function area(prefix: string, seen: string[]): Area {
  return {
    ownsPath: (path) => path.startsWith(prefix),
    fetch: async (request, info) => {
      seen.push(
        `${prefix} ${new URL(request.url).pathname} ${typeof info?.userId === 'string' ? info.userId : undefined}`,
      );
      return new Response(prefix);
    },
  };
}

describe('compose: a request goes to the first area that owns its path', () => {
  it('routes by ownsPath in the order given, passing info unchanged', async () => {
    const seen: string[] = [];
    const both = compose(area('/a', seen), area('/ab', seen), area('/b', seen));
    expect(await (await both.fetch(new Request('http://h/ab/x?y=1'), { userId: 'u' })).text()).toBe('/a');
    expect(await (await both.fetch(new Request('http://h/b'))).text()).toBe('/b');
    expect(seen).toEqual(['/a /ab/x u', '/b /b undefined']);
  });

  it('answers 404 JSON for a path no area owns, and ownsPath says so', async () => {
    const both = compose(area('/a', []));
    const response = await both.fetch(new Request('http://h/elsewhere?a=/a'));
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: 'not_found' });
    expect(both.ownsPath('/elsewhere')).toBe(false);
    expect(both.ownsPath('/a/1')).toBe(true);
  });

  it('refuses something that is not an area at creation', () => {
    expect(() => compose({ fetch: async () => new Response() } as unknown as Area)).toThrow(/ownsPath/);
  });
});

describe('compose forwards the raw handler of the area that owns a path', () => {
  it("offers the owner's raw handler, and none for an owner without one or a path nobody owns", async () => {
    const raw: RawHandler = async () => ({ status: 204, headers: {} });
    const withRaw: RawArea = {
      ...area('/a', []),
      [RAW_HANDLER]: (path: string) => (path === '/a/raw' ? raw : undefined),
    };
    const both = compose(area('/b', []), withRaw);
    expect(rawHandlerOf(both, '/a/raw')).toBe(raw);
    expect(rawHandlerOf(both, '/a/other')).toBeUndefined();
    expect(rawHandlerOf(both, '/b/x')).toBeUndefined();
    expect(rawHandlerOf(both, '/nowhere')).toBeUndefined();
    expect(rawHandlerOf(area('/a', []), '/a/raw')).toBeUndefined();
  });
});
