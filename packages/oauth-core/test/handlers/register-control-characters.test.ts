import { describe, expect, it } from 'vitest';
import { createTestServer, json } from '../helpers.js';

async function register(body: string) {
  const t = await createTestServer();
  const result = await t.server.register(
    {
      method: 'POST',
      path: '/tenant/demo/register',
      query: '',
      headers: { 'content-type': 'application/json' },
      body,
    },
    'demo',
  );
  return { t, result, body: json(result) };
}

describe('POST /register: a control character anywhere in the metadata is refused 400 before any store', () => {
  it.each([
    ['a NUL in client_name', '{"redirect_uris":["https://a.example/cb"],"client_name":"a\\u0000b"}'],
    ['an escape in a redirect URI', '{"redirect_uris":["https://a.example/cb\\u001b"]}'],
    ['a line feed in contacts', '{"redirect_uris":["https://a.example/cb"],"contacts":["a@b.example\\n"]}'],
    ['DEL in an unknown member', '{"redirect_uris":["https://a.example/cb"],"x":{"y":["\\u007f"]}}'],
    ['a NUL in a member name', '{"redirect_uris":["https://a.example/cb"],"a\\u0000":1}'],
  ])('refuses %s (invalid_client_metadata) and stores nothing', async (_, body) => {
    const { t, result, body: answer } = await register(body);
    expect(result.status).toBe(400);
    expect(answer.error).toBe('invalid_client_metadata');
    expect(answer.error_description).toMatch(/control character/);
    expect(await t.storage.clients.list('demo')).toHaveLength(0);
  });

  it('walks deeply nested bodies without overflowing the stack', async () => {
    const { result } = await register(`${'['.repeat(20_000)}${']'.repeat(20_000)}`);
    expect(result.status).toBe(400);
  });

  it('accepts metadata in any script (only C0 and DEL are controls here)', async () => {
    const { result } = await register('{"redirect_uris":["https://a.example/cb"],"client_name":"Café 東京"}');
    expect(result.status).toBe(201);
  });
});
