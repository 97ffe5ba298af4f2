import * as z from 'zod';
import { parseClientJwks } from '../client-keys.js';
import { hasControlCharacter } from '../control-characters.js';
import { applicationTypeProblem, inferApplicationType, redirectUriProblem } from '../redirect-uri.js';
import type { CimdErrorCode, ClientMetadataDocument } from './types.js';

// Methods that authenticate with a secret shared with the server: a document published at a public URL
// cannot carry one, so a client claiming one is misconfigured or hostile.
const sharedSecretMethods: ReadonlySet<string> = new Set([
  'client_secret_basic',
  'client_secret_post',
  'client_secret_jwt',
]);

const documentSchema = z.object({
  client_id: z.string(),
  client_name: z.string().trim().min(1, { error: 'client_name must be a non-empty string' }),
  redirect_uris: z
    // The same rules as dynamic registration: https, loopback http or a dotted private-use scheme.
    .array(
      // Checked again below with the document's application_type (dotless private-use schemes need "native").
      z.string().refine((uri) => redirectUriProblem(uri, 'native') === undefined, {
        error: 'is not an acceptable redirect URI',
      }),
    )
    .min(1),
  client_uri: z.url().exactOptional(),
  logo_uri: z.url().exactOptional(),
  grant_types: z.array(z.string()).exactOptional(),
  response_types: z.array(z.string()).exactOptional(),
  token_endpoint_auth_method: z
    .string()
    .refine((method) => !sharedSecretMethods.has(method), {
      error: 'a metadata-document client cannot use a shared-secret authentication method',
    })
    .exactOptional(),
  token_endpoint_auth_methods_supported: z.array(z.string()).max(10).exactOptional(),
  token_endpoint_auth_signing_alg: z.string().max(32).exactOptional(),
  jwks_uri: z
    .url({ protocol: /^https$/, error: 'jwks_uri must be an https URL' })
    .max(2048)
    .exactOptional(),
  jwks: z
    .unknown()
    .transform((value, ctx) => {
      const check = parseClientJwks(value);
      if (check.ok) return check.jwks;
      ctx.addIssue({ code: 'custom', message: check.description });
      return z.NEVER;
    })
    .exactOptional(),
  application_type: z.enum(['web', 'native']).exactOptional(),
  scope: z.string().exactOptional(),
  dpop_bound_access_tokens: z.boolean().exactOptional(),
  client_secret: z.undefined({ error: 'a metadata document must not contain a client_secret' }).optional(),
});

/**
 * The outcome of validating a fetched document.
 */
export type DocumentCheck =
  | { readonly ok: true; readonly document: ClientMetadataDocument }
  | {
      readonly ok: false;
      readonly error: Extract<CimdErrorCode, 'invalid_json' | 'client_id_mismatch' | 'missing_redirect_uris'>;
      readonly description: string;
    };

/**
 * Validates a parsed metadata document fetched from `clientId`: `client_id` equal to the URL exactly,
 * a non-empty `client_name`, at least one absolute `redirect_uris` entry, no shared-secret authentication.
 * Unknown members are dropped; the result is frozen so a cached document cannot be changed by a caller.
 *
 * @example
 * ```ts
 * const check = checkMetadataDocument(JSON.parse(body), 'https://app.example/client.json');
 * ```
 */
export function checkMetadataDocument(value: unknown, clientId: string): DocumentCheck {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      ok: false,
      error: 'invalid_json',
      description: 'the client metadata document is not a JSON object',
    };
  }
  const record = value as Record<string, unknown>;
  if (record['client_id'] !== clientId) {
    return {
      ok: false,
      error: 'client_id_mismatch',
      description: 'the client_id in the metadata document does not equal the URL it was fetched from',
    };
  }
  // As at POST /register: no metadata member admits one, and PostgreSQL refuses NUL in stored text.
  if (hasControlCharacter(value)) {
    return {
      ok: false,
      error: 'invalid_json',
      description: 'the client metadata document contains a control character',
    };
  }
  const redirectUris = record['redirect_uris'];
  if (!Array.isArray(redirectUris) || redirectUris.length === 0) {
    return {
      ok: false,
      error: 'missing_redirect_uris',
      description: 'the client metadata document has no redirect_uris',
    };
  }
  const parsed = documentSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
    return {
      ok: false,
      error: 'invalid_json',
      description: `the client metadata document is invalid: ${where}${issue?.message ?? 'unknown problem'}`,
    };
  }
  const { client_secret: _secret, ...fields } = parsed.data;
  if (fields.jwks_uri !== undefined && fields.jwks !== undefined) {
    return {
      ok: false,
      error: 'invalid_json',
      description: 'the client metadata document is invalid: give jwks_uri or jwks, not both',
    };
  }
  const applicationType = fields.application_type ?? inferApplicationType(fields.redirect_uris);
  for (const uri of fields.redirect_uris) {
    const problem =
      redirectUriProblem(uri, fields.application_type) ?? applicationTypeProblem(uri, applicationType);
    if (problem) {
      return {
        ok: false,
        error: 'invalid_json',
        description: `the client metadata document is invalid: redirect_uri ${problem}`,
      };
    }
  }
  const document: ClientMetadataDocument = Object.freeze({
    ...fields,
    redirect_uris: Object.freeze([...fields.redirect_uris]),
    ...(fields.grant_types ? { grant_types: Object.freeze([...fields.grant_types]) } : {}),
    ...(fields.response_types ? { response_types: Object.freeze([...fields.response_types]) } : {}),
    ...(fields.token_endpoint_auth_methods_supported
      ? {
          token_endpoint_auth_methods_supported: Object.freeze([
            ...fields.token_endpoint_auth_methods_supported,
          ]),
        }
      : {}),
  });
  return { ok: true, document };
}
