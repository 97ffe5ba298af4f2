import { KeyholdError } from '@keyhold/core';

/**
 * The codes {@link RegistryError} carries. Codes are API: they are added, never renamed.
 *
 * - `ERR_INVALID_OPTIONS`: an option failed validation when a client or API was created.
 * - `ERR_INVALID_PROVIDERS`: provider data given to the API (or the bundled file) failed the schema.
 */
export type RegistryErrorCode = 'ERR_INVALID_OPTIONS' | 'ERR_INVALID_PROVIDERS';

/**
 * Errors raised by `@keyhold/registry-client` for misuse: bad options and invalid provider data handed to it
 * by code. Registry outages are never thrown; the client answers them with a local-fallback result.
 *
 * @example
 * ```ts
 * try { createRegistryApi({ providers: data }); }
 * catch (e) { if (e instanceof RegistryError && e.code === 'ERR_INVALID_PROVIDERS') console.error(e.message); }
 * ```
 */
export class RegistryError extends KeyholdError<RegistryErrorCode> {}
