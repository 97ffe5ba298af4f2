import { bench, describe } from 'vitest';
import { createCimdResolver } from '../src/cimd/resolver.js';

// Warm-cache resolution: the document is fetched once (through an in-process fetch, no network), then every
// iteration is a cache hit with the URL checks, the allowlist check and the metrics call it always pays.
const clientId = 'https://app.example/oauth/client.json';
const document = { client_id: clientId, client_name: 'Bench', redirect_uris: ['https://app.example/cb'] };
const resolver = createCimdResolver({
  fetch: async () => Response.json(document, { headers: { 'cache-control': 'max-age=86400' } }),
});
const context = { allowedDomains: ['other.example', 'app.example'] };
await resolver.resolve(clientId, context);

describe('CIMD resolution', () => {
  bench('warm cache (target: under 50 µs per call)', async () => {
    const resolution = await resolver.resolve(clientId, context);
    if (!resolution.ok || !resolution.cached) throw new Error('expected a cache hit');
  });
});
