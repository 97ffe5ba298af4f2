import type { McpProvider, McpProviderMap } from './mcp-provider.js';

/**
 * A search over a fixed set of providers, with the lower-cased fields computed once.
 *
 * @example
 * ```ts
 * const index = createProviderIndex(providers);
 * index.search('git'); // github, git, … ranked
 * ```
 */
export interface ProviderIndex {
  /** Providers matching `query`, best first; an empty or blank query matches nothing. */
  search(query: string): McpProvider[];
}

interface Entry {
  readonly provider: McpProvider;
  readonly id: string;
  readonly name: string;
  readonly description: string;
}

// Lower rank is better. Id and name matches always come before description-only matches (the rule);
// within them, an exact match beats a prefix, which beats a word start, which beats a substring.
function fieldRank(field: string, query: string): number {
  if (field === query) return 0;
  if (field.startsWith(query)) return 1;
  const at = field.indexOf(query);
  if (at === -1) return -1;
  const before = field.charCodeAt(at - 1);
  const wordStart = !((before >= 97 && before <= 122) || (before >= 48 && before <= 57));
  return wordStart ? 2 : 3;
}

function rank(entry: Entry, query: string): number {
  const id = fieldRank(entry.id, query);
  const name = fieldRank(entry.name, query);
  if (id !== -1 || name !== -1) {
    // Equal ranks prefer the id, the field a user types.
    const idRank = id === -1 ? 99 : id * 2;
    const nameRank = name === -1 ? 99 : name * 2 + 1;
    return Math.min(idRank, nameRank);
  }
  return fieldRank(entry.description, query) === -1 ? -1 : 100;
}

/**
 * Builds a {@link ProviderIndex}. Matching is case-insensitive on id, name and description;
 * id and name matches rank first, then description matches; ties sort by id.
 *
 * @example
 * ```ts
 * const results = createProviderIndex(loadBundledProviders()).search('sentry');
 * ```
 */
export function createProviderIndex(providers: McpProviderMap | readonly McpProvider[]): ProviderIndex {
  const list = Array.isArray(providers) ? providers : Object.values(providers as McpProviderMap);
  const entries: Entry[] = list.map((provider) => ({
    provider,
    id: provider.id.toLowerCase(),
    name: provider.name.toLowerCase(),
    description: provider.description.toLowerCase(),
  }));
  return {
    search(query) {
      const needle = query.trim().toLowerCase();
      if (needle === '') return [];
      const hits: { entry: Entry; rank: number }[] = [];
      for (const entry of entries) {
        const r = rank(entry, needle);
        if (r !== -1) hits.push({ entry, rank: r });
      }
      hits.sort(
        (a, b) => a.rank - b.rank || (a.entry.id < b.entry.id ? -1 : a.entry.id > b.entry.id ? 1 : 0),
      );
      return hits.map((hit) => hit.entry.provider);
    },
  };
}

/**
 * Searches `providers` once; build a {@link createProviderIndex} instead when searching the same set often.
 *
 * @example
 * ```ts
 * searchProviders(providers, 'postgres').map((p) => p.id);
 * ```
 */
export function searchProviders(
  providers: McpProviderMap | readonly McpProvider[],
  query: string,
): McpProvider[] {
  return createProviderIndex(providers).search(query);
}
