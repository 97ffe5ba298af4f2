import type { Logger } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import { createTestServer, exchangeCode, json, obtainCode, postForm, registerClient } from './helpers.js';

describe('secrets hygiene: the logger never receives a secret, token or code', () => {
  it('a whole flow with a replay logs ids only', async () => {
    const lines: string[] = [];
    const record =
      (level: string): Logger['info'] =>
      (fields, message) =>
        lines.push(`${level} ${message ?? ''} ${JSON.stringify(fields)}`);
    const logger: Logger = {
      debug: record('debug'),
      info: record('info'),
      warn: record('warn'),
      error: record('error'),
    };
    const t = await createTestServer({ options: { logger } });
    const client = await registerClient(t.server);
    const { code, verifier } = await obtainCode(t, client.client_id, { scope: 'openid' });
    const tokens = json(await exchangeCode(t, client, code, verifier));
    const refresh = (token: string) =>
      t.server.token(
        postForm('/tenant/demo/token', {
          grant_type: 'refresh_token',
          refresh_token: token,
          client_id: client.client_id,
          client_secret: String(client.client_secret),
        }),
        'demo',
      );
    const rotated = json(await refresh(String(tokens.refresh_token)));
    // Once inside the reuse window (the same successor again), once after it (a replay).
    await refresh(String(tokens.refresh_token));
    t.clock.advance(5_000);
    await refresh(String(tokens.refresh_token));
    await t.server.token(
      postForm('/tenant/demo/token', {
        grant_type: 'client_credentials',
        client_id: client.client_id,
        client_secret: 'wrong',
      }),
      'demo',
    );
    const logged = lines.join('\n');
    expect(logged).toMatch(/within the reuse window/);
    expect(logged).toMatch(/token family revoked/);
    expect(logged).toMatch(/client authentication failed/);
    for (const secret of [
      code,
      verifier,
      client.client_secret,
      tokens.access_token,
      tokens.refresh_token,
      tokens.id_token,
      rotated.refresh_token,
      rotated.access_token,
      'wrong',
    ]) {
      expect(logged).not.toContain(String(secret));
    }
  });
});
