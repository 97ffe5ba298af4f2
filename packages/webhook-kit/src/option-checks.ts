import { type OptionValidators, optionValidators } from '@keyhold/internal';
import { WebhookError } from './errors.js';

/** The `ERR_INVALID_OPTIONS` checks every webhook-kit factory runs at creation, bound to {@link WebhookError}. */
export const check: OptionValidators = optionValidators(WebhookError);
