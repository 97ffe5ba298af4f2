import { StorageUnavailableError } from '@keyhold/core';
import { describe, expect, it } from 'vitest';
import { storageUnavailableResult } from '../src/index.js';

describe('a store that cannot answer is answered 503 with Retry-After', () => {
  it('names the component and never the driver message', () => {
    const error = new StorageUnavailableError('postgres', { cause: new Error('password=secret') });
    expect(error.code).toBe('ERR_STORAGE_UNAVAILABLE');
    expect(error.component).toBe('postgres');
    expect(error.message).toBe('postgres is unavailable');
    const result = storageUnavailableResult(error);
    expect(result.status).toBe(503);
    expect(result.headers['retry-after']).toBe('1');
    expect(result.headers['cache-control']).toBe('no-store');
    expect(JSON.parse(String(result.body))).toEqual({
      error: 'temporarily_unavailable',
      error_description: 'the service is temporarily unavailable',
    });
  });

  it('carries the wait the store asks for', () => {
    const result = storageUnavailableResult(
      new StorageUnavailableError('redis:limiter', { retryAfterSeconds: 5 }),
    );
    expect(result.headers['retry-after']).toBe('5');
  });
});
