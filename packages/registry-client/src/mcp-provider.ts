import * as z from 'zod';
import { RegistryError } from './errors.js';

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

/**
 * The setup step a stdio provider may need before its first launch (for example exporting a token).
 */
export interface McpProviderSetup {
  /** What the setup does. */
  readonly description: string;
  /** The command to run. */
  readonly command: string;
  /** Whether the provider cannot start without it. */
  readonly needsSetup: boolean;
}

/**
 * How to launch a provider as a local process speaking MCP over stdio.
 */
export interface StdioConfig {
  readonly command: string;
  readonly args: readonly string[];
  readonly setup?: McpProviderSetup;
}

/** How a remote provider authenticates its MCP clients. */
export type HttpAuth = 'bearer' | 'oauth' | 'basic';

// Every value of HttpAuth, each once: `satisfies` refuses a missing or an extra one, so the type and the
// schema cannot drift apart.
const HTTP_AUTHS = { bearer: 'bearer', oauth: 'oauth', basic: 'basic' } as const satisfies {
  readonly [Auth in HttpAuth]: Auth;
};

/** The zod schema of {@link HttpAuth}. */
export const httpAuthSchema: z.ZodType<HttpAuth> = z.enum(HTTP_AUTHS);

/**
 * How to reach a provider's remote MCP endpoint.
 */
export interface HttpConfig {
  readonly url: string;
  readonly auth: HttpAuth;
  readonly docs: string;
  readonly notes?: string;
}

/**
 * One entry of the registry: an MCP server a service provides, with how to launch it locally (`stdio`) or
 * reach it remotely (`http`) and how to set it up. (Not `@keyhold/token-vault`'s `Provider`, which is a
 * configured OAuth provider.)
 */
export interface McpProvider {
  /** Unique, lower-case id (`a-z`, `0-9`, `.`, `_`, `-`). */
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly website: string;
  /** The transport to use when both exist; its configuration is always present. */
  readonly recommended: 'stdio' | 'http';
  readonly stdio?: StdioConfig;
  readonly http?: HttpConfig;
}

/** MCP providers keyed by id: the shape of `GET /api/providers` and of `providers.json`. */
export type McpProviderMap = Readonly<Record<string, McpProvider>>;

const setupSchema = z.object({
  description: z.string().min(1),
  command: z.string().min(1),
  needsSetup: z.boolean(),
});

const stdioSchema = z.object({
  command: z.string().min(1),
  args: z.array(z.string()),
  setup: setupSchema.exactOptional(),
});

const httpSchema = z.object({
  url: httpUrl,
  auth: httpAuthSchema,
  docs: httpUrl,
  notes: z.string().exactOptional(),
});

/**
 * The zod schema of a {@link McpProvider}. Unknown fields are dropped rather than rejected, so an older client
 * keeps reading a registry that has grown new fields. The recommended
 * transport's configuration must be present.
 *
 * @example
 * ```ts
 * const result = providerSchema.safeParse(JSON.parse(body));
 * if (result.success) use(result.data);
 * ```
 */
export const providerSchema: z.ZodType<McpProvider> = z
  .object({
    id: z
      .string()
      .min(1)
      .max(100)
      .regex(/^[a-z0-9][a-z0-9._-]*$/, 'must be lower-case letters, digits, ".", "_" or "-"'),
    name: z.string().min(1),
    description: z.string().min(1),
    website: httpUrl,
    recommended: z.enum(['stdio', 'http']),
    stdio: stdioSchema.exactOptional(),
    http: httpSchema.exactOptional(),
  })
  .refine((provider) => provider[provider.recommended] !== undefined, {
    message: 'the recommended transport has no configuration',
    path: ['recommended'],
  });

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`)
    .join('; ');
}

/**
 * Validates one provider. Returns the parsed provider or a message naming every bad field.
 *
 * @example
 * ```ts
 * const checked = parseProvider(data);
 * if (checked.ok) console.log(checked.provider.name); else console.error(checked.message);
 * ```
 */
export function parseProvider(
  data: unknown,
): { readonly ok: true; readonly provider: McpProvider } | { readonly ok: false; readonly message: string } {
  const result = providerSchema.safeParse(withoutUndefinedProperties(data));
  return result.success
    ? { ok: true, provider: result.data }
    : { ok: false, message: describeIssues(result.error) };
}

/**
 * Validates a whole provider map (the registry's data file). Each key must equal its provider's `id`.
 * Throws {@link RegistryError} `ERR_INVALID_PROVIDERS` naming the first bad entry: invalid data is a
 * deployment mistake that must fail loudly at start, not a request-time condition.
 *
 * @example
 * ```ts
 * const providers = parseProviderMap(JSON.parse(readFileSync('providers.json', 'utf8')));
 * ```
 */
export function parseProviderMap(data: unknown): McpProviderMap {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new RegistryError('ERR_INVALID_PROVIDERS', 'providers must be an object mapping id to provider');
  }
  const providers: Record<string, McpProvider> = Object.create(null);
  for (const [key, value] of Object.entries(data)) {
    const checked = parseProvider(value);
    if (!checked.ok) {
      throw new RegistryError('ERR_INVALID_PROVIDERS', `provider "${key}" is invalid: ${checked.message}`);
    }
    if (checked.provider.id !== key) {
      throw new RegistryError(
        'ERR_INVALID_PROVIDERS',
        `provider "${key}" is invalid: its id is "${checked.provider.id}"; the key and the id must match`,
      );
    }
    providers[key] = checked.provider;
  }
  return providers;
}

/**
 * A provider built in JavaScript may carry `key: undefined`, which JSON never does; the schema holds
 * optional fields to "omitted, never undefined", so such keys are taken as omitted before parsing.
 */
function withoutUndefinedProperties(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUndefinedProperties);
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (entry !== undefined) copy[key] = withoutUndefinedProperties(entry);
  }
  return copy;
}
