/**
 * One logging method of a pino-compatible logger: an object of fields first, then a message.
 */
export type LogMethod = (fields: Record<string, unknown>, message?: string) => void;

/**
 * The pino-compatible logger every Keyhold package accepts. A pino instance satisfies it as it is.
 * Keyhold never passes a secret, token or code value to it; only ids and short prefixes.
 *
 * @example
 * ```ts
 * import pino from 'pino';
 * const logger: Logger = pino();
 * ```
 */
export interface Logger {
  debug: LogMethod;
  info: LogMethod;
  warn: LogMethod;
  error: LogMethod;
}

const noop: LogMethod = () => {};

/**
 * A logger that drops everything: the default wherever a logger is optional.
 *
 * @example
 * ```ts
 * const logger = options.logger ?? silentLogger;
 * ```
 */
export const silentLogger: Logger = Object.freeze({ debug: noop, info: noop, warn: noop, error: noop });
