import type { CimdFetch } from './fetch-contract.js';

/**
 * The SSRF-safe fetcher, imported on first use: it needs `node:dns`, `node:net` and `node:https`, which worker
 * runtimes lack, and a resolver given its own `fetch` never loads it.
 */
export function lazySafeFetch(): CimdFetch {
  let loaded: Promise<CimdFetch> | undefined;
  return async (url, init) => {
    loaded ??= import('./safe-fetch.js').then((module) => module.createSafeFetch());
    return (await loaded)(url, init);
  };
}
