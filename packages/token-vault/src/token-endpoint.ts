import { base64Encode, formEncode, mediaType, parseForm, raceAbort, readCapped } from '@keyhold/internal';
import * as z from 'zod';
import type { Provider } from './providers.js';
import { parseScopeString } from './scopes.js';

/** Tokens a provider issued. */
export interface ProviderTokens {
  readonly accessToken: string;
  readonly refreshToken?: string;
  readonly expiresInSeconds?: number;
  /** The scopes the provider says it granted (space- or comma-separated on the wire). */
  readonly grantedScopes?: readonly string[];
}

/**
 * The outcome of a token request: tokens; an OAuth error answer (the provider refused: the grant is dead);
 * or the provider was unreachable or answered something unusable (an outage: nothing is decided).
 */
export type TokenRequestOutcome =
  | { readonly ok: true; readonly tokens: ProviderTokens }
  | { readonly ok: false; readonly reason: 'refused'; readonly error: string; readonly status: number }
  | { readonly ok: false; readonly reason: 'unavailable'; readonly detail: string };

const tokenResponse = z.looseObject({
  access_token: z.string().min(1),
  refresh_token: z.string().min(1).optional(),
  // Some providers send numbers as strings (and form-encoded answers always do).
  expires_in: z.coerce.number().int().nonnegative().optional(),
  scope: z.string().optional(),
});

const errorResponse = z.looseObject({ error: z.string().min(1) });

/** The limits of one token request. */
export interface TokenRequestLimits {
  readonly fetch: typeof fetch;
  /** One deadline for the headers and the whole body. */
  readonly timeoutMs: number;
  /** The most bytes of the answer read; a longer answer is cut off and counts as an outage. */
  readonly maxResponseBytes: number;
  /** The most UTF-8 bytes of each token; an answer with a longer one is refused and nothing is stored. */
  readonly maxTokenBytes: number;
}

/** The limits a broker's options set. */
export function tokenRequestLimits(options: {
  readonly fetch: typeof fetch;
  readonly tokenRequestTimeoutMs: number;
  readonly maxResponseBytes: number;
  readonly maxTokenBytes: number;
}): TokenRequestLimits {
  return {
    fetch: options.fetch,
    timeoutMs: options.tokenRequestTimeoutMs,
    maxResponseBytes: options.maxResponseBytes,
    maxTokenBytes: options.maxTokenBytes,
  };
}

const MAX_PROVIDER_TEXT = 256;

/**
 * Text a provider chose (an `error` code, an `error_description`) as it may reach a page or a log line: control
 * and bidirectional-formatting characters removed, at most 256 characters.
 */
export function providerText(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  const clean = value.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '');
  return clean.length > MAX_PROVIDER_TEXT ? `${clean.slice(0, MAX_PROVIDER_TEXT)}…` : clean;
}

const encoder = new TextEncoder();

function utf8Length(value: string): number {
  return encoder.encode(value).byteLength;
}

/**
 * Posts a token request (authorization_code or refresh_token) to the provider's token endpoint, with the
 * client's credentials as the provider expects them. The answer is read within `limits.timeoutMs` (headers
 * and body together) and `limits.maxResponseBytes`, so an endless, huge or trickling answer costs no more
 * than the limits.
 */
export async function requestTokens(
  provider: Provider,
  params: Readonly<Record<string, string>>,
  limits: TokenRequestLimits,
): Promise<TokenRequestOutcome> {
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    // GitHub answers form-encoded unless JSON is asked for.
    accept: 'application/json',
  };
  const body: Record<string, string> = { ...params };
  if (provider.tokenEndpointAuthMethod === 'client_secret_basic') {
    // RFC 6749 §2.3.1: the credentials are form-encoded before they are joined and base64-encoded.
    const user = encodeURIComponent(provider.clientId);
    const password = encodeURIComponent(provider.clientSecret);
    headers.authorization = `Basic ${base64Encode(`${user}:${password}`)}`;
  } else {
    body.client_id = provider.clientId;
    body.client_secret = provider.clientSecret;
  }
  let response: Response;
  let text: string;
  try {
    const signal = AbortSignal.timeout(limits.timeoutMs);
    response = await raceAbort(
      limits.fetch(provider.tokenUrl, {
        method: 'POST',
        headers,
        body: formEncode(body),
        redirect: 'error',
        signal,
      }),
      signal,
    );
    const read = await readCapped(response, limits.maxResponseBytes, signal);
    if (!read.ok) {
      return {
        ok: false,
        reason: 'unavailable',
        detail: `token endpoint answer over ${limits.maxResponseBytes} bytes`,
      };
    }
    text = new TextDecoder().decode(read.bytes);
  } catch (error) {
    return { ok: false, reason: 'unavailable', detail: error instanceof Error ? error.name : 'fetch failed' };
  }
  let decoded: unknown;
  if (mediaType(response.headers.get('content-type') ?? undefined) === 'application/x-www-form-urlencoded') {
    // A provider's error_description may span lines; the text is cleaned before it is shown or logged.
    const form = parseForm(text, { allowLineBreaks: true });
    decoded = form.ok ? { ...form.params } : undefined;
  } else {
    try {
      decoded = JSON.parse(text);
    } catch {
      decoded = undefined;
    }
  }
  // GitHub reports errors with status 200, so the body decides, not the status alone.
  const failure = errorResponse.safeParse(decoded);
  if (failure.success && (response.status === 200 || (response.status >= 400 && response.status < 500))) {
    return {
      ok: false,
      reason: 'refused',
      error: providerText(failure.data.error),
      status: response.status,
    };
  }
  if (response.status !== 200) {
    return { ok: false, reason: 'unavailable', detail: `token endpoint answered ${response.status}` };
  }
  const parsed = tokenResponse.safeParse(decoded);
  if (!parsed.success)
    return { ok: false, reason: 'unavailable', detail: 'token endpoint answered without an access_token' };
  const { access_token, refresh_token, expires_in, scope } = parsed.data;
  // A token is a bearer string a few hundred bytes long; one far longer would be encrypted, stored and
  // decrypted again on every ask. Refused as the provider's fault: nothing is stored.
  if (
    utf8Length(access_token) > limits.maxTokenBytes ||
    (refresh_token !== undefined && utf8Length(refresh_token) > limits.maxTokenBytes)
  ) {
    return {
      ok: false,
      reason: 'unavailable',
      detail: `token endpoint answered a token over ${limits.maxTokenBytes} bytes`,
    };
  }
  return {
    ok: true,
    tokens: {
      accessToken: access_token,
      ...(refresh_token === undefined ? {} : { refreshToken: refresh_token }),
      ...(expires_in === undefined ? {} : { expiresInSeconds: expires_in }),
      ...(scope === undefined ? {} : { grantedScopes: parseScopeString(scope) }),
    },
  };
}
