import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { openSuccessor, sealSuccessor } from '../src/refresh-successor.js';

const OLD = 'old-refresh-token-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const NEXT = 'next-refresh-token-BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB';
const BINDING = { tenant: 'demo', tokenHash: 'hash-of-old' };
// Sealed by the node:crypto implementation this one replaced: rows written before the change still open.
const SEALED_BY_NODE_CRYPTO =
  'r1.CourckB_UqnwV8P1MDkkmw-UUGOKMspOpi2mLfNzbTVaeQo6bP-25-pUOhGKKpBqkhHRfp2XREf5CYUVYkZIrF4c7yNxq3gpWvvKHuEdvEb4tfKCiOk';

function bodyOf(sealed: string): Uint8Array {
  return new Uint8Array(Buffer.from(sealed.slice(3), 'base64url'));
}

describe('the sealed successor: only the holder of the old token opens it, only on its own row', () => {
  it('opens with the old token it was sealed under', async () => {
    expect(await openSuccessor(OLD, BINDING, await sealSuccessor(OLD, BINDING, NEXT))).toBe(NEXT);
  });

  it('opens a value sealed before the move to WebCrypto (same layout: iv ‖ tag ‖ ciphertext)', async () => {
    expect(await openSuccessor(OLD, BINDING, SEALED_BY_NODE_CRYPTO)).toBe(NEXT);
    const sealed = await sealSuccessor(OLD, BINDING, NEXT);
    expect(sealed.length).toBe(SEALED_BY_NODE_CRYPTO.length);
  });

  it('never contains the successor in the clear, and differs on every sealing (random IV)', async () => {
    const first = await sealSuccessor(OLD, BINDING, NEXT);
    const second = await sealSuccessor(OLD, BINDING, NEXT);
    expect(first).toMatch(/^r1\.[A-Za-z0-9_-]+$/);
    expect(first).not.toContain(NEXT);
    expect(Buffer.from(bodyOf(first)).toString('latin1')).not.toContain(NEXT);
    expect(first).not.toBe(second);
  });

  it('does not open with any other token (a database copy alone reveals nothing)', async () => {
    const sealed = await sealSuccessor(OLD, BINDING, NEXT);
    expect(await openSuccessor(`${OLD}x`, BINDING, sealed)).toBeUndefined();
    expect(await openSuccessor(NEXT, BINDING, sealed)).toBeUndefined();
  });

  it('does not open on another row or tenant (the AAD binds it)', async () => {
    const sealed = await sealSuccessor(OLD, BINDING, NEXT);
    expect(await openSuccessor(OLD, { ...BINDING, tokenHash: 'other' }, sealed)).toBeUndefined();
    expect(await openSuccessor(OLD, { ...BINDING, tenant: 'other' }, sealed)).toBeUndefined();
  });

  it('answers undefined, never throws, for a tampered or malformed value', async () => {
    const sealed = await sealSuccessor(OLD, BINDING, NEXT);
    const tampered = (index: number) => {
      const body = bodyOf(sealed);
      body[index] = (body[index] ?? 0) ^ 1;
      return `r1.${Buffer.from(body).toString('base64url')}`;
    };
    for (const value of [
      tampered(0), // iv
      tampered(12), // tag
      tampered(bodyOf(sealed).length - 1), // ciphertext
      sealed.replace(/^r1\./, 'r2.'),
      `${sealed}.extra`,
      `${sealed}=`,
      'r1.',
      'r1.AAAA',
      'r1.A',
      '',
      'not sealed',
    ]) {
      expect(await openSuccessor(OLD, BINDING, value)).toBeUndefined();
    }
  });
});
