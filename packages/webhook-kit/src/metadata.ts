/**
 * What a webhook method receives under `_webhook` beside the body fields.
 *
 * @example
 * ```ts
 * class GitHubWebhooks {
 *   async handlePush({ ref, _webhook }: { ref: string; _webhook: WebhookMetadata }) {
 *     console.log(ref, _webhook.headers['x-github-event'], _webhook.timestamp);
 *   }
 * }
 * ```
 */
export interface WebhookMetadata {
  /** Always `POST`. */
  readonly method: 'POST';
  /** The request headers (lower-cased names), secret-bearing ones replaced by `[redacted]`. */
  readonly headers: Readonly<Record<string, string>>;
  /** The URL query parameters. */
  readonly query: Readonly<Record<string, string>>;
  /** The Unix time of receipt, in whole seconds. */
  readonly timestamp: number;
}

/**
 * The parameter object a webhook method receives: the body's fields plus `_webhook`. Body fields are
 * strings for a form body and any JSON value for a JSON body; type `Fields` as the sender documents them
 * (and validate them in the method: they come from the network).
 *
 * @example
 * ```ts
 * class GitHubWebhooks {
 *   async handlePush(params: WebhookParams<{ ref?: unknown }>) {
 *     if (typeof params.ref !== 'string') throw new Error('ref missing');
 *     return { branch: params.ref, at: params._webhook.timestamp };
 *   }
 * }
 * ```
 */
export type WebhookParams<Fields extends object = Record<string, unknown>> = Fields & {
  readonly _webhook: WebhookMetadata;
};

/**
 * The value that stands in for a secret-bearing header in {@link WebhookMetadata.headers}.
 *
 * @example
 * ```ts
 * _webhook.headers['x-webhook-secret'] === REDACTED; // true when the header was sent
 * ```
 */
export const REDACTED = '[redacted]';

/**
 * Headers whose values are replaced by `[redacted]` before a method sees them: the shared secret,
 * credentials, cookies, and every signature scheme's header (a signature is a replayable credential
 * within its tolerance window).
 *
 * @example
 * ```ts
 * createWebhookHandler({ modules, redactHeaders: [...DEFAULT_REDACTED_HEADERS, 'x-internal-token'] });
 * ```
 */
export const DEFAULT_REDACTED_HEADERS: readonly string[] = Object.freeze([
  'x-webhook-secret',
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'x-hub-signature',
  'x-hub-signature-256',
  'stripe-signature',
  'webhook-signature',
  'svix-signature',
]);

/**
 * Copies headers, replacing the values of those named in `redacted` (lower-case names).
 *
 * @example
 * ```ts
 * redactHeaders({ cookie: 'sid=1', accept: '*\/*' }, new Set(['cookie'])); // { cookie: '[redacted]', accept: '*\/*' }
 * ```
 */
export function redactHeaders(
  headers: Readonly<Record<string, string>>,
  redacted: ReadonlySet<string>,
): Record<string, string> {
  const copy: Record<string, string> = {};
  for (const name in headers) copy[name] = redacted.has(name) ? REDACTED : headers[name]!;
  return copy;
}
