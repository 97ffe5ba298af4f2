import type { Clock, OnceStore } from '@keyhold/core';
import { base64urlEncode, onceKey } from '@keyhold/internal';
import { createRequestStateCodec, type ServerContext } from '@modelcontextprotocol/server';

/**
 * What a 2026-07-28 `requestState` carries between the `input_required` answer and the client's retry.
 * Signed, not encrypted: the client can read it, so it holds ids and hashes only. The principal is bound
 * through the codec's HMAC tag and never appears in it.
 */
export interface RequestStatePayload {
  /** Random id, spent on first use. */
  readonly jti: string;
  /** The tool the state was minted for. */
  readonly tool: string;
  /** SHA-256 of the call's canonical arguments. */
  readonly argsHash: string;
  readonly provider: string;
  /** Expiry by the endpoint's clock (epoch ms). */
  readonly exp: number;
}

/** Mints and verifies the `requestState` of brokered-token retries. */
export interface RequestStateSeal {
  mint(tool: string, args: unknown, provider: string, ctx: ServerContext): Promise<string>;
  /** `ServerOptions.requestState.verify`: throws (reason only) for any state not to be honoured. */
  verify(state: string, ctx: ServerContext): Promise<RequestStatePayload>;
  /** Whether a verified payload belongs to this call. */
  matches(payload: RequestStatePayload, tool: string, args: unknown): Promise<boolean>;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

async function argumentsHash(args: unknown): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(canonicalJson(args)));
  return base64urlEncode(new Uint8Array(digest));
}

function principalOf(ctx: ServerContext): string {
  const authInfo = ctx.http?.authInfo;
  const sub = authInfo?.extra?.['sub'];
  return `${typeof sub === 'string' ? sub : ''}\0${authInfo?.clientId ?? ''}`;
}

/** The requestState seal: the SDK's HMAC codec, plus our own expiry (injected clock) and single use. */
export function createRequestStateSeal(
  secret: Uint8Array | string,
  ttlMs: number,
  clock: Clock,
  store: OnceStore,
): RequestStateSeal {
  const codec = createRequestStateCodec<RequestStatePayload>({
    key: secret,
    // The codec checks its own expiry by the wall clock; ours, by the injected clock, is the one that decides.
    ttlSeconds: Math.ceil(ttlMs / 1000) + 300,
    bind: (ctx) => `${ctx.mcpReq.method}\0${principalOf(ctx)}`,
  });
  return {
    async mint(tool, args, provider, ctx) {
      const jti = base64urlEncode(crypto.getRandomValues(new Uint8Array(18)));
      const payload: RequestStatePayload = {
        jti,
        tool,
        argsHash: await argumentsHash(args),
        provider,
        exp: clock.now() + ttlMs,
      };
      return codec.mint(payload, ctx);
    },
    async verify(state, ctx) {
      const payload = await codec.verify(state, ctx);
      if (
        typeof payload !== 'object' ||
        payload === null ||
        typeof payload.jti !== 'string' ||
        typeof payload.exp !== 'number'
      ) {
        throw new Error('malformed');
      }
      if (payload.exp <= clock.now()) throw new Error('expired');
      if (!(await store.consume(onceKey('state', payload.jti), payload.exp, clock.now()))) {
        throw new Error('replayed');
      }
      return payload;
    },
    async matches(payload, tool, args) {
      return payload.tool === tool && payload.argsHash === (await argumentsHash(args));
    },
  };
}
