import * as z from 'zod';
import { TokenVaultError } from './errors.js';
import { canonicalScopes } from './scopes.js';

/** The ids of the built-in provider templates. */
export type BuiltInProviderId = 'google' | 'github' | 'microsoft';

/**
 * A built-in provider registered with its client credentials. `id` is the template id, or any id when
 * `template` names the template (two GitHub apps, say).
 */
export interface BuiltInProviderRegistration {
  readonly id: string;
  readonly template?: BuiltInProviderId;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Microsoft only: the directory segment of the endpoints (default `common`). */
  readonly directory?: string;
}

/**
 * A custom OAuth 2.0 provider: its endpoints and client fields plus optional wire details.
 */
export interface CustomProviderRegistration {
  readonly id: string;
  readonly name: string;
  readonly authorizationUrl: string;
  readonly tokenUrl: string;
  /** Default scopes, used when an ask names none. */
  readonly scopes: readonly string[];
  readonly clientId: string;
  readonly clientSecret: string;
  /** How the client authenticates at the token endpoint (default `client_secret_post`). */
  readonly tokenEndpointAuthMethod?: 'client_secret_post' | 'client_secret_basic';
  /** Scopes sent with every authorization request but not part of the grant key (e.g. `offline_access`). */
  readonly additionalScopes?: readonly string[];
  /** Extra query parameters of the authorization request (e.g. `{ access_type: 'offline' }`). */
  readonly authorizationParams?: Readonly<Record<string, string>>;
  /**
   * The provider's issuer identifier, for a provider that sends `iss` with its authorization responses
   * (RFC 9207; its metadata says `authorization_response_iss_parameter_supported: true`). When given, a
   * callback without `iss`, or with another value, is refused (a mix-up attack). Default: not checked.
   */
  readonly issuer?: string;
}

/** Either kind of provider registration. */
export type ProviderRegistration = BuiltInProviderRegistration | CustomProviderRegistration;

/** A provider ready to use: every field resolved. */
export interface Provider {
  readonly id: string;
  readonly name: string;
  readonly authorizationUrl: string;
  readonly tokenUrl: string;
  readonly defaultScopes: readonly string[];
  readonly clientId: string;
  readonly clientSecret: string;
  readonly tokenEndpointAuthMethod: 'client_secret_post' | 'client_secret_basic';
  readonly additionalScopes: readonly string[];
  readonly authorizationParams: Readonly<Record<string, string>>;
  /** When set, every authorization response must carry this `iss` (RFC 9207). */
  readonly issuer?: string;
}

type Template = Omit<Provider, 'id' | 'clientId' | 'clientSecret' | 'issuer'>;

function builtInTemplate(id: BuiltInProviderId, directory: string): Template {
  switch (id) {
    case 'google':
      return {
        name: 'Google',
        authorizationUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
        tokenUrl: 'https://oauth2.googleapis.com/token',
        defaultScopes: ['openid', 'email', 'profile'],
        tokenEndpointAuthMethod: 'client_secret_post',
        additionalScopes: [],
        // Google issues a refresh token only for offline access, and again only with a fresh consent.
        authorizationParams: { access_type: 'offline', prompt: 'consent' },
      };
    case 'github':
      return {
        name: 'GitHub',
        authorizationUrl: 'https://github.com/login/oauth/authorize',
        tokenUrl: 'https://github.com/login/oauth/access_token',
        defaultScopes: ['read:user', 'user:email'],
        tokenEndpointAuthMethod: 'client_secret_post',
        additionalScopes: [],
        authorizationParams: {},
      };
    case 'microsoft':
      return {
        name: 'Microsoft',
        authorizationUrl: `https://login.microsoftonline.com/${directory}/oauth2/v2.0/authorize`,
        tokenUrl: `https://login.microsoftonline.com/${directory}/oauth2/v2.0/token`,
        defaultScopes: ['openid', 'email', 'profile', 'User.Read'],
        tokenEndpointAuthMethod: 'client_secret_post',
        // Microsoft identity platform returns a refresh token only when offline_access is requested.
        additionalScopes: ['offline_access'],
        authorizationParams: {},
      };
  }
}

const BUILT_IN_IDS: readonly BuiltInProviderId[] = ['google', 'github', 'microsoft'];

const providerId = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'lower-case letters, digits, . _ -');

// https everywhere, except plain http on a loopback host for local development and tests.
const endpointUrl = z.url().refine((value) => {
  // Zod runs this refinement even when the URL check above failed, so parse defensively.
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url === undefined) return false;
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
}, 'must be an https URL (http only on a loopback host)');

const scope = z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'a scope token (RFC 6749 §3.3)');

const builtInSchema = z.strictObject({
  id: providerId,
  template: z.enum(BUILT_IN_IDS).optional(),
  clientId: z.string().min(1),
  clientSecret: z.string().min(1),
  directory: z
    .string()
    .regex(/^[A-Za-z0-9.-]+$/)
    .optional(),
});

const customSchema = z.strictObject({
  id: providerId,
  name: z.string().min(1).max(100),
  authorizationUrl: endpointUrl,
  tokenUrl: endpointUrl,
  scopes: z.array(scope).min(1),
  clientId: z.string().min(1),
  clientSecret: z.string().min(1),
  tokenEndpointAuthMethod: z.enum(['client_secret_post', 'client_secret_basic']).optional(),
  additionalScopes: z.array(scope).optional(),
  authorizationParams: z.record(z.string(), z.string()).optional(),
  issuer: endpointUrl.optional(),
});

const RESERVED_PARAMS = new Set([
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
]);

/**
 * Validates a provider registration and resolves it into a {@link Provider}; throws `ERR_INVALID_OPTIONS`
 * with the reason when it is refused.
 *
 * @example
 * ```ts
 * const github = resolveProvider({ id: 'github', clientId, clientSecret });
 * github.tokenUrl; // 'https://github.com/login/oauth/access_token'
 * ```
 */
export function resolveProvider(registration: ProviderRegistration): Provider {
  if ('authorizationUrl' in registration || 'tokenUrl' in registration) {
    const parsed = customSchema.safeParse(registration);
    if (!parsed.success) {
      throw new TokenVaultError(
        'ERR_INVALID_OPTIONS',
        `custom provider ${String(registration.id)}: ${z.prettifyError(parsed.error)}`,
      );
    }
    const custom = parsed.data;
    for (const name of Object.keys(custom.authorizationParams ?? {})) {
      if (RESERVED_PARAMS.has(name)) {
        throw new TokenVaultError(
          'ERR_INVALID_OPTIONS',
          `custom provider ${custom.id}: ${name} is set by the broker`,
        );
      }
    }
    return {
      id: custom.id,
      name: custom.name,
      authorizationUrl: custom.authorizationUrl,
      tokenUrl: custom.tokenUrl,
      defaultScopes: canonicalScopes(custom.scopes),
      clientId: custom.clientId,
      clientSecret: custom.clientSecret,
      tokenEndpointAuthMethod: custom.tokenEndpointAuthMethod ?? 'client_secret_post',
      additionalScopes: canonicalScopes(custom.additionalScopes ?? []),
      authorizationParams: { ...custom.authorizationParams },
      ...(custom.issuer === undefined ? {} : { issuer: custom.issuer }),
    };
  }
  const parsed = builtInSchema.safeParse(registration);
  if (!parsed.success) {
    throw new TokenVaultError(
      'ERR_INVALID_OPTIONS',
      `provider ${String(registration.id)}: ${z.prettifyError(parsed.error)}`,
    );
  }
  const builtIn = parsed.data;
  const templateId = builtIn.template ?? (BUILT_IN_IDS as readonly string[]).find((id) => id === builtIn.id);
  if (templateId === undefined) {
    throw new TokenVaultError(
      'ERR_INVALID_OPTIONS',
      `provider ${builtIn.id}: not a built-in template (${BUILT_IN_IDS.join(', ')}); give template, or the fields of a custom provider`,
    );
  }
  const template = builtInTemplate(templateId as BuiltInProviderId, builtIn.directory ?? 'common');
  return {
    ...template,
    defaultScopes: canonicalScopes(template.defaultScopes),
    id: builtIn.id,
    clientId: builtIn.clientId,
    clientSecret: builtIn.clientSecret,
  };
}
