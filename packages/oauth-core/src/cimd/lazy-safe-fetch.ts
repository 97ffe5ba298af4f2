import type { CimdFetch } from './fetch-contract.js';
import type { SafeFetchOptions } from './safe-fetch.js';

/**
 * The SSRF-safe fetcher, imported on first use: it needs `node:dns`, `node:net` and `node:https`, which worker
 * runtimes lack, and a server given its own `fetch` that never hands a URL to it never loads it.
 */
export function lazySafeFetch(options: SafeFetchOptions = {}): CimdFetch {
  let loaded: Promise<CimdFetch> | undefined;
  return async (url, init) => {
    loaded ??= import('./safe-fetch.js').then((module) => module.createSafeFetch(options));
    return (await loaded)(url, init);
  };
}
