import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@keyhold/core';
import { StorageUnavailableError } from '@keyhold/core';
import { userIdOf } from '@keyhold/internal';
import { afterEach, describe, expect, it } from 'vitest';
import { toNodeListener } from '../src/node-listener.js';

let server: Server | undefined;

async function serve(listener: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(listener);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

function recordingLogger(): { logger: Logger; lines: { level: string; fields: Record<string, unknown> }[] } {
  const lines: { level: string; fields: Record<string, unknown> }[] = [];
  const at = (level: string) => (fields: Record<string, unknown>) => lines.push({ level, fields });
  return { logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, lines };
}

async function expectServiceUnavailable(response: Response): Promise<void> {
  expect(response.status).toBe(503);
  expect(response.headers.get('retry-after')).toBe('9');
  expect(response.headers.get('cache-control')).toBe('no-store');
  const text = await response.text();
  expect(JSON.parse(text)).toMatchObject({ error: 'temporarily_unavailable' });
  expect(text).not.toContain('at ');
  expect(text).not.toContain('redis');
}

describe('last resort: a StorageUnavailableError that reaches the adapter is a 503 with Retry-After, never a 500', () => {
  it('a fetch throwing it answers 503 and logs one warn line naming the component', async () => {
    const { logger, lines } = recordingLogger();
    const base = await serve(
      toNodeListener(
        async () => {
          throw new StorageUnavailableError('redis:sessions', { retryAfterSeconds: 9 });
        },
        { logger },
      ),
    );
    await expectServiceUnavailable(await fetch(`${base}/tenant/demo/token?secret=x`, { method: 'POST' }));
    expect(lines).toEqual([
      {
        level: 'warn',
        fields: {
          event: 'storage_unavailable',
          component: 'redis:sessions',
          method: 'POST',
          path: '/tenant/demo/token',
        },
      },
    ]);
  });

  it('the userId option throwing it (a session store down) answers 503 too, when the area asks for the user', async () => {
    const base = await serve(
      toNodeListener(
        async (_request, info) => {
          await userIdOf(info);
          return new Response(null, { status: 204 });
        },
        {
          userId: () => {
            throw new StorageUnavailableError('redis:sessions', { retryAfterSeconds: 9 });
          },
        },
      ),
    );
    await expectServiceUnavailable(await fetch(`${base}/x`));
  });

  it('a fetch throwing it on a request with a body answers 503', async () => {
    const base = await serve(
      toNodeListener(async () => {
        throw new StorageUnavailableError('postgres', { retryAfterSeconds: 9 });
      }),
    );
    await expectServiceUnavailable(await fetch(`${base}/mcp`, { method: 'POST', body: '{}' }));
  });

  it('any other exception is still the generic 500', async () => {
    const base = await serve(
      toNodeListener(async () => {
        throw new Error('boom');
      }),
    );
    expect((await fetch(`${base}/x`)).status).toBe(500);
  });
});
