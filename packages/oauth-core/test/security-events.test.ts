import type { Logger } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import {
  authorizeRequest,
  basic,
  createTestServer,
  decideConsent,
  exchangeCode,
  json,
  location,
  obtainCode,
  postForm,
  registerClient,
} from './helpers.js';

/** Every log line as `{ level, message, ...fields }`, so tests can look for a security event by its fields. */
function capture(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const at =
    (level: string): Logger['info'] =>
    (fields, message) =>
      lines.push({ level, message, ...fields });
  return { logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, lines };
}

const events = (lines: Record<string, unknown>[], event: string) =>
  lines.filter((line) => line['event'] === event);

describe('security events: stable `event` and `reason` fields a log pipeline can alert on', () => {
  it('authentication_failed / invalid_client for a wrong client secret, at info, with the endpoint and tenant', async () => {
    const { logger, lines } = capture();
    const t = await createTestServer({ options: { logger } });
    const client = await registerClient(t.server);
    await t.server.token(
      postForm('/tenant/demo/token', { grant_type: 'client_credentials' }, basic(client.client_id, 'wrong')),
      'demo',
    );
    expect(events(lines, 'authentication_failed')).toEqual([
      expect.objectContaining({ level: 'info', reason: 'invalid_client', endpoint: 'token', tenant: 'demo' }),
    ]);
    expect(JSON.stringify(lines)).not.toContain('wrong');
  });

  it('authentication_failed / invalid_token for a presented bearer token that is refused', async () => {
    const { logger, lines } = capture();
    const t = await createTestServer({ options: { logger } });
    await t.server.verifyAccessToken('demo', 'Bearer not.a.token');
    await expect(t.server.tokenVerifier('demo').verifyAccessToken('garbage')).rejects.toThrow();
    // verifyAccessToken at info; tokenVerifier at debug (its resource, @keyhold/mcp, logs the event at info).
    expect(events(lines, 'authentication_failed').map((line) => [line['level'], line['reason']])).toEqual([
      ['info', 'invalid_token'],
      ['debug', 'invalid_token'],
    ]);
  });

  it('replay_detected / authorization_code when a code is redeemed twice, at warn', async () => {
    const { logger, lines } = capture();
    const t = await createTestServer({ options: { logger } });
    const client = await registerClient(t.server);
    const { code, verifier } = await obtainCode(t, client.client_id);
    json(await exchangeCode(t, client, code, verifier));
    await exchangeCode(t, client, code, verifier);
    expect(events(lines, 'replay_detected')).toEqual([
      expect.objectContaining({
        level: 'warn',
        reason: 'authorization_code',
        tenant: 'demo',
        clientId: client.client_id,
      }),
    ]);
  });

  it('consent_denied when the user denies, naming client and user (never a token)', async () => {
    const { logger, lines } = capture();
    const t = await createTestServer({ options: { logger } });
    const client = await registerClient(t.server, { token_endpoint_auth_method: 'none' });
    const started = await t.server.authorize(authorizeRequest(client.client_id), 'demo');
    const req = location(started).searchParams.get('req') ?? '';
    const denied = await decideConsent(t.server, req, 'deny');
    expect(denied.status).toBe(302);
    expect(events(lines, 'consent_denied')).toEqual([
      expect.objectContaining({ tenant: 'demo', clientId: client.client_id }),
    ]);
  });
});
