import { describe, expect, it } from 'vitest';
import { onceKey } from '../src/once-key.js';

describe('onceKey namespaces ids and bounds their length', () => {
  it('joins the namespace and the parts with colons', () => {
    expect(onceKey('assertion', 'demo', 'client-1', 'jti-1')).toBe('assertion:demo:client-1:jti-1');
  });

  it('encodes every part but the last, so no two tuples share a key', () => {
    expect(onceKey('assertion', 't', 'a:b', 'c')).not.toBe(onceKey('assertion', 't', 'a', 'b:c'));
  });

  it('replaces a key longer than 200 characters by its namespace and SHA-256', () => {
    const key = onceKey('webhook', 'route', 'x'.repeat(500));
    expect(key).toMatch(/^webhook:#[A-Za-z0-9_-]{43}$/);
    expect(key).not.toBe(onceKey('webhook', 'route', 'y'.repeat(500)));
    expect(onceKey('webhook', 'route', 'x'.repeat(500))).toBe(key);
  });
});
