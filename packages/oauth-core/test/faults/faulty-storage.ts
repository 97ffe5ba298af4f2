import { StorageUnavailableError } from '@keyhold/core';
import type { OAuthStorage } from '../../src/index.js';

/** `'<store>.<method>'` of {@link OAuthStorage}, e.g. `'refreshTokens.save'`. */
export type StorageMethod = {
  [S in keyof OAuthStorage]: `${S & string}.${keyof OAuthStorage[S] & string}`;
}[keyof OAuthStorage];

/**
 * How a method fails: `before` throws without touching the store (the connection was refused), `after`
 * lets the write happen and then throws (the reply was lost: the most dangerous kind for partial state),
 * `hang` never settles (a stuck connection pool), `unavailable` throws the `StorageUnavailableError` a
 * real store throws for a refused connection or a timeout (component `memory`, Retry-After 7 s).
 */
export type FaultMode = 'before' | 'after' | 'hang' | 'unavailable';

/** A storage outage as the handler sees it. */
export class InjectedFault extends Error {
  constructor(readonly method: StorageMethod) {
    super(`injected storage fault in ${method}`);
  }
}

export interface FaultyStorage {
  readonly storage: OAuthStorage;
  /** Makes the next `times` calls of `method` fail in `mode`. */
  fail(method: StorageMethod, mode: FaultMode, times?: number): void;
  /** Every call that completed, in order (what really reached the store). */
  readonly completed: StorageMethod[];
  /** How many faults were injected so far. */
  readonly injected: number;
}

/** Wraps a real storage so that chosen methods throw or hang mid-operation. */
export function faultyStorage(inner: OAuthStorage): FaultyStorage {
  const plan = new Map<StorageMethod, { mode: FaultMode; times: number }>();
  const completed: StorageMethod[] = [];
  let injected = 0;
  const wrap = <T extends object>(store: T, name: string): T =>
    new Proxy(store, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (typeof value !== 'function') return value;
        const method = `${name}.${String(property)}` as StorageMethod;
        return async (...args: unknown[]) => {
          const fault = plan.get(method);
          if (fault !== undefined && fault.times > 0) {
            fault.times--;
            injected++;
            if (fault.mode === 'hang') return new Promise(() => {});
            if (fault.mode === 'before') throw new InjectedFault(method);
            if (fault.mode === 'unavailable') {
              throw new StorageUnavailableError('memory', { retryAfterSeconds: 7 });
            }
            await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
            completed.push(method);
            throw new InjectedFault(method);
          }
          const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          completed.push(method);
          return result;
        };
      },
    });
  const storage = Object.fromEntries(
    Object.entries(inner).map(([name, store]) => [name, wrap(store as object, name)]),
  ) as unknown as OAuthStorage;
  return {
    storage,
    fail(method, mode, times = 1) {
      plan.set(method, { mode, times });
    },
    completed,
    get injected() {
      return injected;
    },
  };
}

/** Resolves with `'pending'` when `promise` has not settled within `ms` of real time. */
export async function settledWithin<T>(promise: Promise<T>, ms: number): Promise<T | 'pending'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<'pending'>((resolve) => {
    timer = setTimeout(() => resolve('pending'), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
