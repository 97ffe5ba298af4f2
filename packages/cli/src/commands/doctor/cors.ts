import { boundedFetch, FetchRefusedError } from './bounded-fetch.js';
import type { Discovery } from './discovery.js';
import { error, type Finding } from './finding.js';

/** An endpoint a browser client calls, and the method and headers its preflight asks for. */
interface CorsTarget {
  readonly label: string;
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers: string;
}

function targets(discovery: Discovery): CorsTarget[] {
  const metadata = discovery.authorizationServerMetadata ?? {};
  const list: CorsTarget[] = [];
  // The SDK sends MCP-Protocol-Version on metadata fetches, which makes them preflighted.
  if (discovery.protectedResourceMetadataUrl !== undefined) {
    list.push({
      label: 'protected resource metadata',
      url: discovery.protectedResourceMetadataUrl,
      method: 'GET',
      headers: 'mcp-protocol-version',
    });
  }
  if (discovery.authorizationServerMetadataUrl !== undefined) {
    list.push({
      label: 'authorization server metadata',
      url: discovery.authorizationServerMetadataUrl,
      method: 'GET',
      headers: 'mcp-protocol-version',
    });
  }
  for (const [field, label] of [
    ['token_endpoint', 'token endpoint'],
    ['registration_endpoint', 'registration endpoint'],
  ] as const) {
    const url = metadata[field];
    if (typeof url === 'string') list.push({ label, url, method: 'POST', headers: 'content-type' });
  }
  return list;
}

function allows(origin: string, header: string | null): boolean {
  return header === '*' || header === origin;
}

/**
 * Replays what a browser does before each call of a browser client (the Inspector): an `OPTIONS` preflight
 * from `origin`, then the `Access-Control-Allow-Origin` of the preflight and, for documents, of the GET.
 */
export async function corsFindings(
  fetchImpl: typeof fetch,
  discovery: Discovery,
  origin: string,
): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const target of targets(discovery)) {
    const fix =
      target.label === 'registration endpoint'
        ? `Allow browser registration from ${origin} (in Keyhold: the server's allowedOrigins; in the example host KEYHOLD_ALLOWED_ORIGINS).`
        : `Answer OPTIONS and ${target.method} on ${target.url} with Access-Control-Allow-Origin (* or ${origin}) and allow the ${target.headers} header.`;
    try {
      const preflight = await boundedFetch(fetchImpl, target.url, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': target.method,
          'access-control-request-headers': target.headers,
        },
      });
      const allowedHeaders = (preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase();
      const headersOk =
        allowedHeaders === '*' ||
        target.headers.split(',').every((name) => allowedHeaders.includes(name.trim()));
      if (
        preflight.status >= 300 ||
        !allows(origin, preflight.headers.get('access-control-allow-origin')) ||
        !headersOk
      ) {
        findings.push(
          error(
            'cors_preflight',
            `The browser's preflight to the ${target.label} is refused (status ${preflight.status}, Access-Control-Allow-Origin ${JSON.stringify(preflight.headers.get('access-control-allow-origin'))}).`,
            fix,
          ),
        );
        continue;
      }
      if (target.method === 'GET') {
        const get = await boundedFetch(fetchImpl, target.url, { headers: { origin } });
        if (!allows(origin, get.headers.get('access-control-allow-origin'))) {
          findings.push(
            error(
              'cors_response',
              `The ${target.label} is served without Access-Control-Allow-Origin, so the browser hides it.`,
              fix,
            ),
          );
        }
      }
    } catch (cause) {
      if (!(cause instanceof FetchRefusedError)) throw cause;
      findings.push(error('cors_unreachable', `${target.label}: ${cause.message}`, fix));
    }
  }
  return findings;
}
