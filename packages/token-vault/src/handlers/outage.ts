import type { Logger } from '@keyhold/core';
import { StorageUnavailableError } from '@keyhold/core';
import type { Handler } from '@keyhold/internal';
import { NO_STORE_HEADERS } from '@keyhold/internal';
import { page } from '../pages.js';

/**
 * Answers a storage outage in a browser step (connect, callback) with a 503 page and `Retry-After`, and one
 * warn line naming the component and the step, instead of rejecting (a host's 500). The pages are what a
 * person sees, so the answer is a page like every other answer of these handlers.
 */
export function answeringOutages(handler: Handler, logger: Logger, step: 'connect' | 'callback'): Handler {
  return async (request) => {
    try {
      return await handler(request);
    } catch (error) {
      if (!(error instanceof StorageUnavailableError)) throw error;
      logger.warn(
        { event: 'storage_unavailable', component: error.component, endpoint: step },
        'token-vault: storage unavailable, answered 503',
      );
      const answer = page(
        503,
        'Temporarily unavailable',
        'The service is temporarily unavailable. Wait a moment, then run the tool again.',
      );
      return {
        ...answer,
        headers: { ...answer.headers, ...NO_STORE_HEADERS, 'retry-after': String(error.retryAfterSeconds) },
      };
    }
  };
}
