import { createHmac, timingSafeEqual } from 'node:crypto';

const COOKIE = 'keyhold_dev_session';

/** A signed session cookie for the development login: `<base64url user>.<expiry ms>.<hmac>`. */
export interface SessionCookies {
  /** The `Set-Cookie` value that logs `userId` in for `ttlMs`. */
  issue(userId: string, nowMs: number): string;
  /** The user id of a valid, unexpired cookie in a `Cookie` header, or `undefined`. */
  read(cookieHeader: string | undefined, nowMs: number): string | undefined;
  /** The `Set-Cookie` value that logs out. */
  clear(): string;
}

/** Creates signed session cookies; the host's own, outside Keyhold, as the architecture says. */
export function createSessionCookies(
  secret: string,
  options: { ttlMs?: number; secure?: boolean } = {},
): SessionCookies {
  const ttlMs = options.ttlMs ?? 8 * 3600_000;
  const attributes = `Path=/; HttpOnly; SameSite=Lax${options.secure ? '; Secure' : ''}`;
  const sign = (payload: string): string => createHmac('sha256', secret).update(payload).digest('base64url');
  return {
    issue(userId, nowMs) {
      const payload = `${Buffer.from(userId).toString('base64url')}.${nowMs + ttlMs}`;
      return `${COOKIE}=${payload}.${sign(payload)}; ${attributes}; Max-Age=${Math.floor(ttlMs / 1000)}`;
    },
    read(cookieHeader, nowMs) {
      if (!cookieHeader) return undefined;
      for (const part of cookieHeader.split(';')) {
        const [name, value] = part.trim().split('=', 2) as [string, string | undefined];
        if (name !== COOKIE || value === undefined) continue;
        const [user, expiry, signature] = value.split('.');
        if (!user || !expiry || !signature) return undefined;
        if (!sameSignature(signature, sign(`${user}.${expiry}`))) return undefined;
        if (Number(expiry) <= nowMs) return undefined;
        return Buffer.from(user, 'base64url').toString('utf8');
      }
      return undefined;
    },
    clear: () => `${COOKIE}=; ${attributes}; Max-Age=0`,
  };
}

/** Compares two signatures in time that does not depend on where they differ. */
function sameSignature(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
