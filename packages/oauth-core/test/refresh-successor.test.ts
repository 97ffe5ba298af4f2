import { describe, expect, it } from 'vitest';
import { openSuccessor, sealSuccessor } from '../src/refresh-successor.js';

const OLD = 'old-refresh-token-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const NEXT = 'next-refresh-token-BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB';
const BINDING = { tenant: 'demo', tokenHash: 'hash-of-old' };

describe('the sealed successor: only the holder of the old token opens it, only on its own row', () => {
  it('opens with the old token it was sealed under', () => {
    expect(openSuccessor(OLD, BINDING, sealSuccessor(OLD, BINDING, NEXT))).toBe(NEXT);
  });

  it('never contains the successor in the clear, and differs on every sealing (random IV)', () => {
    const first = sealSuccessor(OLD, BINDING, NEXT);
    const second = sealSuccessor(OLD, BINDING, NEXT);
    expect(first).toMatch(/^r1\.[A-Za-z0-9_-]+$/);
    expect(first).not.toContain(NEXT);
    expect(Buffer.from(first.slice(3), 'base64url').toString('latin1')).not.toContain(NEXT);
    expect(first).not.toBe(second);
  });

  it('does not open with any other token (a database copy alone reveals nothing)', () => {
    const sealed = sealSuccessor(OLD, BINDING, NEXT);
    expect(openSuccessor(`${OLD}x`, BINDING, sealed)).toBeUndefined();
    expect(openSuccessor(NEXT, BINDING, sealed)).toBeUndefined();
  });

  it('does not open on another row or tenant (the AAD binds it)', () => {
    const sealed = sealSuccessor(OLD, BINDING, NEXT);
    expect(openSuccessor(OLD, { ...BINDING, tokenHash: 'other' }, sealed)).toBeUndefined();
    expect(openSuccessor(OLD, { ...BINDING, tenant: 'other' }, sealed)).toBeUndefined();
  });

  it('answers undefined, never throws, for a tampered or malformed value', () => {
    const sealed = sealSuccessor(OLD, BINDING, NEXT);
    const body = Buffer.from(sealed.slice(3), 'base64url');
    body[body.length - 1] = (body[body.length - 1] ?? 0) ^ 1;
    for (const value of [
      `r1.${body.toString('base64url')}`,
      sealed.replace(/^r1\./, 'r2.'),
      `${sealed}.extra`,
      'r1.',
      'r1.AAAA',
      '',
      'not sealed',
    ]) {
      expect(openSuccessor(OLD, BINDING, value)).toBeUndefined();
    }
  });
});
