/**
 * One thing a client would hit: `error` stops its sign-in, `warning` works but is fragile or limited.
 * `code` is stable for machines; `message` says what is wrong and `fix` what to change on the server.
 */
export interface Finding {
  readonly severity: 'error' | 'warning';
  readonly code: string;
  readonly message: string;
  readonly fix: string;
}

/** A finding that stops the sign-in. */
export function error(code: string, message: string, fix: string): Finding {
  return { severity: 'error', code, message, fix };
}

/** A finding that does not stop the sign-in. */
export function warning(code: string, message: string, fix: string): Finding {
  return { severity: 'warning', code, message, fix };
}
