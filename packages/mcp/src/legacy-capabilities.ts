import type { Clock } from '@keyhold/core';
import { base64urlDecode, base64urlDecodeToString, base64urlEncode } from '@keyhold/internal';

/**
 * The 2025-era capability id. Served statelessly, a 2025-era `tools/call` carries no client capabilities
 * and the server never saw `initialize`, so the answer to `initialize` carries them in a signed
 * `Mcp-Session-Id` that clients echo on every later request. It holds no server state: any instance that
 * knows the secret reads it, and it is bound to the principal, so a copied id reads as "no capability".
 */
export interface LegacyCapabilities {
  /** The `Mcp-Session-Id` value for an `initialize` answer. */
  mint(urlElicitation: boolean, principal: string): Promise<string>;
  /** Whether a presented id says the client shows URL elicitations; anything unreadable says no. */
  urlElicitation(sessionId: string | null, principal: string): Promise<boolean>;
}

const encoder = new TextEncoder();

/** Creates the capability id codec, keyed by `secret` (HMAC-SHA256, domain-separated from other uses). */
export function createLegacyCapabilities(
  secret: Uint8Array | string,
  ttlMs: number,
  clock: Clock,
): LegacyCapabilities {
  const raw = new Uint8Array(typeof secret === 'string' ? encoder.encode(secret) : secret);
  const key = crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
    'verify',
  ]);
  const signed = (body: string, principal: string): Uint8Array<ArrayBuffer> =>
    encoder.encode(`keyhold.mcp.legacy-capabilities\0${body}\0${principal}`);
  return {
    async mint(urlElicitation, principal) {
      const nonce = base64urlEncode(crypto.getRandomValues(new Uint8Array(12)));
      const body = base64urlEncode(
        encoder.encode(JSON.stringify({ u: urlElicitation ? 1 : 0, iat: clock.now(), n: nonce })),
      );
      const mac = await crypto.subtle.sign('HMAC', await key, signed(body, principal));
      return `c1.${body}.${base64urlEncode(new Uint8Array(mac))}`;
    },
    async urlElicitation(sessionId, principal) {
      if (sessionId === null || sessionId.length > 512) return false;
      const parts = sessionId.split('.');
      if (parts.length !== 3 || parts[0] !== 'c1' || !parts[1] || !parts[2]) return false;
      try {
        const mac = new Uint8Array(base64urlDecode(parts[2]));
        // subtle.verify compares in constant time.
        if (!(await crypto.subtle.verify('HMAC', await key, mac, signed(parts[1], principal)))) return false;
        const claims = JSON.parse(base64urlDecodeToString(parts[1])) as { u?: unknown; iat?: unknown };
        if (typeof claims.iat !== 'number' || claims.iat + ttlMs <= clock.now()) return false;
        return claims.u === 1;
      } catch {
        return false;
      }
    },
  };
}
