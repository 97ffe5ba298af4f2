import autocannon from 'autocannon';
import type { RoundResult } from './report.js';
import type { Announcement, Listening } from './servers/common.js';

/** One kind of request a scenario sends, built for one target. */
export type RequestPlan = autocannon.Request;

const FORM = 'application/x-www-form-urlencoded';

export function basic(clientId: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

/** `grant_type=client_credentials` from the announced client. */
export function clientCredentials(target: Announcement): RequestPlan {
  return {
    method: 'POST',
    path: target.tokenPath,
    headers: { 'content-type': FORM, authorization: basic(target.clientId, target.clientSecret) },
    body: 'grant_type=client_credentials',
  };
}

/**
 * client_credentials spread over `active` clients evenly spaced across the target's `clientCount`
 * registered ones (`bench-<i>`, secret `<secretPrefix>-<i>`), one after the other.
 */
export function clientCredentialsSpread(target: Announcement, active: number): RequestPlan {
  const count = target.clientCount ?? 1;
  const stride = Math.max(1, Math.floor(count / active));
  const headers = Array.from({ length: Math.min(active, count) }, (_, i) =>
    basic(`bench-${i * stride}`, `${target.secretPrefix}-${i * stride}`),
  );
  let next = 0;
  return {
    method: 'POST',
    path: target.tokenPath,
    headers: { 'content-type': FORM },
    body: 'grant_type=client_credentials',
    setupRequest: (request) => ({
      ...request,
      headers: { ...request.headers, authorization: headers[next++ % headers.length] as string },
    }),
  };
}

/**
 * The refresh grant with rotation: each request spends one token from a pool shared by every connection
 * and puts the new one back, so a run never presents a spent token. The pool starts with the seeded tokens;
 * at most one token per connection is lost when a run stops mid-request.
 */
export function refresh(target: Announcement, pool: string[]): RequestPlan {
  return {
    method: 'POST',
    path: target.tokenPath,
    headers: { 'content-type': FORM },
    setupRequest: (request) => ({
      ...request,
      body: `grant_type=refresh_token&client_id=${target.refreshClientId}&refresh_token=${pool.shift() ?? 'exhausted'}`,
    }),
    onResponse: (status, body) => {
      if (status === 200) pool.push((JSON.parse(body) as { refresh_token: string }).refresh_token);
    },
  };
}

/** Introspection of one token by the announced confidential client. */
export function introspection(target: Announcement, token: string): RequestPlan {
  return {
    method: 'POST',
    path: target.introspectPath ?? '/introspect',
    headers: { 'content-type': FORM, authorization: basic(target.clientId, target.clientSecret) },
    body: `token=${encodeURIComponent(token)}`,
  };
}

/** Runs autocannon against one target for `seconds`. */
export async function run(
  target: Listening,
  plan: RequestPlan,
  seconds: number,
  connections: number,
): Promise<RoundResult> {
  const result = await autocannon({
    url: target.url,
    connections,
    duration: seconds,
    requests: [plan],
  });
  const ok = result['2xx'];
  return {
    rps: ok / seconds,
    p99: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

/** A token from the target's token endpoint (for introspection runs); `extra` is appended to the form. */
export async function fetchToken(target: Announcement, extra = ''): Promise<string> {
  const response = await fetch(`${target.url}${target.tokenPath}`, {
    method: 'POST',
    headers: { 'content-type': FORM, authorization: basic(target.clientId, target.clientSecret) },
    body: `grant_type=client_credentials${extra}`,
  });
  const body = (await response.json()) as { access_token?: string };
  if (!response.ok || typeof body.access_token !== 'string') {
    throw new Error(`no token from ${target.url}: ${response.status} ${JSON.stringify(body)}`);
  }
  return body.access_token;
}

/** Checks one introspection answers `active: true` before it is measured. */
export async function checkIntrospection(target: Announcement, token: string): Promise<void> {
  const plan = introspection(target, token);
  const response = await fetch(`${target.url}${plan.path}`, {
    method: 'POST',
    headers: plan.headers as Record<string, string>,
    body: plan.body as string,
  });
  const body = (await response.json()) as { active?: boolean };
  if (body.active !== true)
    throw new Error(`introspection at ${target.url} is not active: ${JSON.stringify(body)}`);
}
