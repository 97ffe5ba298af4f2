import bundled from '../providers.json' with { type: 'json' };
import type { McpProviderMap } from './mcp-provider.js';
import { parseProviderMap } from './mcp-provider.js';

let cached: McpProviderMap | undefined;

/**
 * The curated providers file shipped with this package (`providers.json`), validated on first use. It is
 * the client's fallback and the registry server's default data. The JSON is bundled into the build, so this
 * works without file-system access (browsers, workers) and from both source and `dist`.
 *
 * @example
 * ```ts
 * const providers = loadBundledProviders();
 * console.log(Object.keys(providers).length);
 * ```
 */
export function loadBundledProviders(): McpProviderMap {
  cached ??= Object.freeze(parseProviderMap(bundled));
  return cached;
}
