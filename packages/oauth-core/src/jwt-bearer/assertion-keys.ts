import type { CryptoKey } from 'jose';
import { importJWK } from 'jose';
import type { ClientAssertionAlgorithm } from '../client-keys.js';
import { selectClientKey } from '../client-keys.js';
import type { ServerContext } from '../options.js';
import type { RequestEvent } from '../request-event.js';
import type { ClientJwk, ClientJwks } from '../storage.js';
import { refusal } from './refusal.js';

/** Where a trusted assertion issuer's keys come from: inline, or an https URL fetched by the server. */
export interface AssertionKeySource {
  /** Names the issuer in debug logs (an issuer URL or a SPIFFE trust domain), never key material. */
  readonly label: string;
  readonly jwks?: ClientJwks | undefined;
  readonly jwksUri?: string | undefined;
}

/** The reason codes a pipeline puts on the event when no key can be had. */
export interface AssertionKeyReasons {
  /** The key set could not be fetched (or no fetcher is configured). */
  readonly unavailable: string;
  /** No key of the set fits the assertion's `alg` and `kid`. */
  readonly notFound: string;
}

async function keysOf(
  context: ServerContext,
  source: AssertionKeySource,
  refresh: boolean,
  event: RequestEvent,
  reasons: AssertionKeyReasons,
): Promise<{ keys: readonly ClientJwk[]; refetchable: boolean }> {
  if (source.jwks !== undefined) return { keys: source.jwks.keys, refetchable: false };
  const resolver = context.clientAssertions?.jwks;
  if (resolver === undefined || source.jwksUri === undefined) {
    throw refusal(event, reasons.unavailable, 'the issuer keys are not available');
  }
  // The server's one key-set fetch: https only, SSRF-checked, bounded in bytes and time, cached.
  const resolution = await resolver.resolve(source.jwksUri, { refresh });
  if (!resolution.ok) {
    context.logger.debug(
      { issuer: source.label, detail: resolution.detail ?? resolution.description },
      'assertion issuer key set unavailable',
    );
    throw refusal(event, reasons.unavailable, 'the issuer keys are not available');
  }
  return { keys: resolution.keys, refetchable: true };
}

/**
 * The key that verifies an assertion of a trusted issuer (ID-JAG, workload JWT): chosen by `alg` and `kid`
 * among the issuer's keys; a fetched key set is refetched once (throttled by the resolver) for an unknown
 * `kid`, since the issuer may have rotated. Refuses with `invalid_grant` and the pipeline's reason codes.
 */
export async function assertionKey(
  context: ServerContext,
  source: AssertionKeySource,
  algorithm: ClientAssertionAlgorithm,
  kid: string | undefined,
  event: RequestEvent,
  reasons: AssertionKeyReasons,
): Promise<CryptoKey | Uint8Array> {
  let { keys, refetchable } = await keysOf(context, source, false, event, reasons);
  let selection = selectClientKey(keys, algorithm, kid);
  if (!selection.ok && selection.reason === 'unknown_kid' && refetchable) {
    ({ keys, refetchable } = await keysOf(context, source, true, event, reasons));
    selection = selectClientKey(keys, algorithm, kid);
  }
  if (!selection.ok) {
    throw refusal(
      event,
      reasons.notFound,
      selection.reason === 'ambiguous'
        ? 'the issuer has several keys for this alg: the assertion must name one with kid'
        : 'no key of the issuer can verify the assertion',
    );
  }
  try {
    return await importedKey(selection.key, algorithm);
  } catch {
    throw refusal(event, reasons.notFound, 'the issuer key cannot verify the assertion');
  }
}

// Imported keys by JWK object and alg: a policy's inline keys and a cached key set's keys are the same
// objects request after request, so each is imported once, not per assertion. A refetched set brings new
// objects (the old ones and their imports are collected with it).
const imported = new WeakMap<ClientJwk, Map<string, Promise<CryptoKey | Uint8Array>>>();

function importedKey(jwk: ClientJwk, algorithm: ClientAssertionAlgorithm): Promise<CryptoKey | Uint8Array> {
  let byAlg = imported.get(jwk);
  if (byAlg === undefined) {
    byAlg = new Map();
    imported.set(jwk, byAlg);
  }
  let key = byAlg.get(algorithm);
  if (key === undefined) {
    key = importJWK({ ...jwk }, algorithm);
    // A key that does not import is not remembered: the refusal stays, the next request tries again.
    key.catch(() => byAlg.delete(algorithm));
    byAlg.set(algorithm, key);
  }
  return key;
}
