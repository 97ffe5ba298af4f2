import { bench, describe } from 'vitest';
import type { McpProvider } from '../src/mcp-provider.js';
import { createProviderIndex, searchProviders } from '../src/search.js';

const words = [
  'git',
  'cloud',
  'search',
  'database',
  'files',
  'issues',
  'browser',
  'payments',
  'docs',
  'memory',
];
const providers: McpProvider[] = Array.from({ length: 1000 }, (_, i) => ({
  id: `provider-${i}-${words[i % words.length]}`,
  name: `Provider ${i} ${words[(i * 7) % words.length]}`,
  description: `Provider number ${i} gives the model access to ${words[(i * 3) % words.length]} and ${words[(i * 5) % words.length]}.`,
  website: `https://example.com/${i}`,
  recommended: 'stdio',
  stdio: { command: 'npx', args: ['-y', `@example/provider-${i}`] },
}));
const index = createProviderIndex(providers);

describe('search over 1,000 providers (target < 1 ms)', () => {
  bench('index.search("git"): id/name/description matches, ranked', () => {
    index.search('git');
  });

  bench('index.search("payments and docs"): no match', () => {
    index.search('payments and docs');
  });

  bench('searchProviders(list, "cloud"): index built per call', () => {
    searchProviders(providers, 'cloud');
  });
});
