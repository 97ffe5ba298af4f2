import type { HandlerRequest } from '@keyhold/core';
import { bench, describe } from 'vitest';
import { createRegistryApiWithHandle } from '../src/server/registry-api.js';

const api = createRegistryApiWithHandle({ rateLimitPerWindow: 1_000_000_000 });
const request = (path: string, query = ''): HandlerRequest => ({
  method: 'GET',
  path,
  query,
  headers: {},
  body: '',
  ip: '127.0.0.1',
});

describe('registry API handler, in process (no HTTP)', () => {
  bench('GET /api/providers/github', async () => {
    await api(request('/api/providers/github'));
  });

  bench('GET /api/providers/search?q=git', async () => {
    await api(request('/api/providers/search', 'q=git'));
  });
});
