/**
 * Makes one value safe to print: control characters (terminal escape sequences) become `?`. For data the
 * command did not write itself: claim labels, paths, registry data fetched over the network.
 *
 * @example
 * ```ts
 * printable('a\u001b[2Jb'); // 'a?[2Jb'
 * ```
 */
export function printable(text: string): string {
  return text.replace(/\p{Cc}/gu, '?');
}

/**
 * Makes a block of output safe to print: like {@link printable}, but keeps line breaks and tabs.
 *
 * @example
 * ```ts
 * terminalText('name\u001b]0;pwned\u0007\n'); // 'name?]0;pwned?\n'
 * ```
 */
export function terminalText(text: string): string {
  return text.replace(/[^\P{Cc}\n\t]/gu, '?');
}
