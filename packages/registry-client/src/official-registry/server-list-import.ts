import * as z from 'zod';
import { RegistryError } from '../errors.js';
import type { McpProvider, McpProviderMap } from '../mcp-provider.js';
import { serverJsonToProvider } from './from-server-json.js';
import { officialMetaOf } from './keyhold-meta.js';

/**
 * The outcome of {@link importOfficialServerList}: the providers converted from one page, the entries that
 * were skipped and why, and the cursor of the next page when there is one.
 */
export interface OfficialImport {
  readonly providers: McpProviderMap;
  readonly skipped: readonly { readonly name: string; readonly reason: string }[];
  readonly nextCursor?: string;
}

const listSchema = z.object({
  servers: z.array(z.object({ server: z.unknown(), _meta: z.record(z.string(), z.unknown()).optional() })),
  metadata: z.object({ nextCursor: z.string().optional(), count: z.number().optional() }).optional(),
});
// Only to name a skipped entry in the report; the entry itself is read by serverJsonToProvider.
const namedSchema = z.object({ name: z.string() });

/**
 * Reads one page of the official registry's `GET /v0.1/servers` answer (`{ servers: [{ server, _meta }],
 * metadata: { nextCursor, count } }`) into providers. Entries the official metadata marks as not `active` or
 * not the latest version are skipped, as are entries {@link serverJsonToProvider} cannot convert and later
 * duplicates of an id. Throws {@link RegistryError} `ERR_INVALID_PROVIDERS` when the page itself has the
 * wrong shape.
 *
 * @example
 * ```ts
 * const page = await (await fetch('https://registry.modelcontextprotocol.io/v0.1/servers?limit=100')).json();
 * const { providers, skipped, nextCursor } = importOfficialServerList(page);
 * ```
 */
export function importOfficialServerList(page: unknown): OfficialImport {
  const parsed = listSchema.safeParse(page);
  if (!parsed.success) {
    throw new RegistryError(
      'ERR_INVALID_PROVIDERS',
      'not a /v0.1/servers page: expected { servers: [{ server }] }',
    );
  }
  const providers: Record<string, McpProvider> = Object.create(null);
  const skipped: { name: string; reason: string }[] = [];
  for (const item of parsed.data.servers) {
    const named = namedSchema.safeParse(item.server);
    const name = named.success ? named.data.name : '(unnamed)';
    const official = officialMetaOf(item._meta);
    if (official.status !== undefined && official.status !== 'active') {
      skipped.push({ name, reason: `status is ${String(official.status)}` });
      continue;
    }
    if (official.isLatest === false) {
      skipped.push({ name, reason: 'not the latest version' });
      continue;
    }
    const converted = serverJsonToProvider(item.server);
    if (!converted.ok) {
      skipped.push({ name, reason: converted.reason });
      continue;
    }
    if (providers[converted.value.id]) {
      skipped.push({ name, reason: `another entry already uses the id "${converted.value.id}"` });
      continue;
    }
    providers[converted.value.id] = converted.value;
  }
  const nextCursor = parsed.data.metadata?.nextCursor;
  return { providers, skipped, ...(nextCursor ? { nextCursor } : {}) };
}
