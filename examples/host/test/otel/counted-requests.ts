import { expect } from 'vitest';
import { REGISTRATION_POINT } from '../../../../test-support/metric-points.js';

// The two requests the host's metrics tests make before reading the counters, and the points they must add:
// both the in-process meter test and the OTLP export test count the same traffic.

/** The `mcp_auth.events` points that `fetchMetadataAndRegister` adds. */
export const METADATA_AND_REGISTRATION_POINTS = [
  { attributes: { endpoint: 'metadata', status: 200 }, value: 1 },
  REGISTRATION_POINT,
] as const;

/** Reads the demo tenant's metadata and registers a public client, failing unless both succeed. */
export async function fetchMetadataAndRegister(hostUrl: string): Promise<void> {
  expect((await fetch(`${hostUrl}/.well-known/oauth-authorization-server/tenant/demo`)).status).toBe(200);
  const registered = await fetch(`${hostUrl}/tenant/demo/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      redirect_uris: ['http://127.0.0.1:3000/callback'],
      token_endpoint_auth_method: 'none',
    }),
  });
  expect(registered.status).toBe(201);
}
