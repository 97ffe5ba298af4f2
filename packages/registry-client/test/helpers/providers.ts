import type { McpProvider } from '../../src/mcp-provider.js';

export function stdioProvider(id: string, overrides: Partial<McpProvider> = {}): McpProvider {
  return {
    id,
    name: `Provider ${id}`,
    description: `The ${id} test provider.`,
    website: `https://example.com/${id}`,
    recommended: 'stdio',
    stdio: { command: 'npx', args: ['-y', `@example/${id}`] },
    ...overrides,
  };
}

export function httpProvider(id: string, overrides: Partial<McpProvider> = {}): McpProvider {
  return {
    id,
    name: `Remote ${id}`,
    description: `The ${id} remote provider.`,
    website: `https://example.com/${id}`,
    recommended: 'http',
    http: { url: `https://mcp.example.com/${id}`, auth: 'oauth', docs: `https://example.com/${id}/docs` },
    ...overrides,
  };
}

/** The user-facing note of a client result, when it has one. */
export function noteOf(result: object): string | undefined {
  return 'note' in result && typeof result.note === 'string' ? result.note : undefined;
}
