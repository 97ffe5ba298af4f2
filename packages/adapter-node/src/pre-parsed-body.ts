import type { IncomingMessage } from 'node:http';
import { BodyAlreadyConsumedError } from './errors.js';

/** A body a framework read and parsed before Keyhold saw the request. */
export interface PreParsedBody {
  /** The body encoded back as the client sent it. */
  readonly text: string;
  /** The framework's parse (`req.body`) when it was a JSON value or a form, for `info.parsedBody`. */
  readonly parsed?: unknown;
}

/**
 * The body a framework's parser left in `req.body`, encoded back as the client sent it: a string or buffer
 * as is, a plain object as JSON or as a form (by the request's content type). Flat forms only: a nested
 * value (a "qs" extended parse) cannot be re-encoded faithfully, and is {@link BodyAlreadyConsumedError}.
 * `undefined` when there is no parse to use.
 */
export function preParsedBody(request: IncomingMessage): PreParsedBody | undefined {
  const parsed = (request as { body?: unknown }).body;
  if (parsed === undefined || parsed === null) return undefined;
  if (typeof parsed === 'string') return { text: parsed };
  if (parsed instanceof Uint8Array) return { text: Buffer.from(parsed).toString('utf8') };
  if (typeof parsed !== 'object') return undefined;
  const type = (request.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
  if (type === 'application/json' || type.endsWith('+json')) return { text: JSON.stringify(parsed), parsed };
  if (type === 'application/x-www-form-urlencoded') {
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries(parsed as Record<string, unknown>)) {
      for (const item of Array.isArray(value) ? value : [value]) {
        if (typeof item !== 'string')
          throw new BodyAlreadyConsumedError(`field "${name}" was parsed into a nested value`);
        form.append(name, item);
      }
    }
    return { text: form.toString(), parsed };
  }
  return undefined;
}
