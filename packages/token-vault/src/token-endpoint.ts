import { formEncode, mediaType, parseForm } from '@keyhold/core';
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

/**
 * Posts a token request (authorization_code or refresh_token) to the provider's token endpoint, with the
 * client's credentials as the provider expects them.
 */
export async function requestTokens(
  provider: Provider,
  params: Readonly<Record<string, string>>,
  fetchImpl: typeof fetch,
  timeoutMs: number,
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
    headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  } else {
    body.client_id = provider.clientId;
    body.client_secret = provider.clientSecret;
  }
  let response: Response;
  let text: string;
  try {
    response = await fetchImpl(provider.tokenUrl, {
      method: 'POST',
      headers,
      body: formEncode(body),
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    });
    text = await response.text();
  } catch (error) {
    return { ok: false, reason: 'unavailable', detail: error instanceof Error ? error.name : 'fetch failed' };
  }
  let decoded: unknown;
  if (mediaType(response.headers.get('content-type') ?? undefined) === 'application/x-www-form-urlencoded') {
    const form = parseForm(text);
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
    return { ok: false, reason: 'refused', error: failure.data.error, status: response.status };
  }
  if (response.status !== 200) {
    return { ok: false, reason: 'unavailable', detail: `token endpoint answered ${response.status}` };
  }
  const parsed = tokenResponse.safeParse(decoded);
  if (!parsed.success)
    return { ok: false, reason: 'unavailable', detail: 'token endpoint answered without an access_token' };
  const { access_token, refresh_token, expires_in, scope } = parsed.data;
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
