/** The `code` of a Node.js system error (`ENOENT`, `EEXIST`, …), or `undefined` for anything else. */
export function systemErrorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
    ? error.code
    : undefined;
}
