import * as z from 'zod';
import { type HttpAuth, httpAuthSchema, type McpProviderSetup } from '../mcp-provider.js';

// The `_meta` key under which a publisher's own fields travel in a `server.json` entry.
const PUBLISHER_META = 'io.modelcontextprotocol.registry/publisher-provided';
// The `_meta` key the official registry adds to a listed entry (`status`, `isLatest`).
const OFFICIAL_META = 'io.modelcontextprotocol.registry/official';
// Keyhold's own fields travel under the publisher-provided metadata, so a round trip through `server.json`
// loses nothing.
const KEYHOLD_META = 'dev.keyhold/provider';

/** The provider fields `server.json` has no place for, kept in `_meta` (see {@link keyholdMetaOf}). */
export interface KeyholdMeta {
  id?: string;
  description?: string;
  recommended?: 'stdio' | 'http';
  auth?: HttpAuth;
  docs?: string;
  notes?: string;
  setup?: McpProviderSetup;
  launch?: { command: string; args: string[] };
}

// Typed by the interface, so that the two cannot drift apart.
const keyholdMetaSchema: z.ZodType<KeyholdMeta> = z.object({
  id: z.string().exactOptional(),
  description: z.string().exactOptional(),
  recommended: z.enum(['stdio', 'http']).exactOptional(),
  auth: httpAuthSchema.exactOptional(),
  docs: z.string().exactOptional(),
  notes: z.string().exactOptional(),
  setup: z.object({ description: z.string(), command: z.string(), needsSetup: z.boolean() }).exactOptional(),
  launch: z.object({ command: z.string(), args: z.array(z.string()) }).exactOptional(),
});

/** The `_meta` of a `server.json` entry carrying {@link KeyholdMeta}, as {@link keyholdMetaOf} reads it back. */
export function keyholdMetaEntry(meta: KeyholdMeta): Record<string, unknown> {
  return { [PUBLISHER_META]: { [KEYHOLD_META]: meta } };
}

const metaSchema = z.record(z.string(), z.unknown());

/**
 * The {@link KeyholdMeta} of a `server.json` entry's `_meta`, or none (`{}`) when it has none or it is not
 * well-formed: an entry published without Keyhold is converted from its native fields alone.
 */
export function keyholdMetaOf(meta: Readonly<Record<string, unknown>> | undefined): KeyholdMeta {
  const publisher = metaSchema.safeParse(meta?.[PUBLISHER_META]);
  const keyhold = keyholdMetaSchema.safeParse(publisher.success ? publisher.data[KEYHOLD_META] : undefined);
  return keyhold.success ? keyhold.data : {};
}

/** What the official registry says about a listed entry; other fields are ignored. */
export interface OfficialMeta {
  readonly status?: unknown;
  readonly isLatest?: unknown;
}

const officialMetaSchema: z.ZodType<OfficialMeta> = z.object({
  status: z.unknown().exactOptional(),
  isLatest: z.unknown().exactOptional(),
});

/** The {@link OfficialMeta} of a list item's `_meta`, or none (`{}`). */
export function officialMetaOf(meta: Readonly<Record<string, unknown>> | undefined): OfficialMeta {
  const official = officialMetaSchema.safeParse(meta?.[OFFICIAL_META]);
  return official.success ? official.data : {};
}
