// Control characters (C0, DEL, C1: terminal escape sequences, bells, carriage returns) and the bidirectional
// controls that reorder how a line is shown (U+061C, U+200E/F, U+202A–U+202E, U+2066–U+2069: "Trojan
// Source"), none of which a name, a description, a URL or a command needs.
const UNSAFE = /[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;
const UNSAFE_BUT_LINE_BREAKS = /[^\P{Cc}\n\t]|[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;
// What JSON.stringify leaves raw although a terminal may act on it: DEL, C1 and the bidirectional controls.
const RAW_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/**
 * Makes one value safe to print on one line: control characters (terminal escape sequences, line breaks)
 * and bidirectional controls become `?`. For data the command did not write itself: claim labels, paths,
 * registry data fetched over the network.
 *
 * @example
 * ```ts
 * printable('a\u001b[2Jb'); // 'a?[2Jb'
 * ```
 */
export function printable(text: string): string {
  return text.replace(UNSAFE, '?');
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
  return text.replace(UNSAFE_BUT_LINE_BREAKS, '?');
}

/**
 * `JSON.stringify(value, null, indent)` (indent 2 by default) safe to print: the characters it leaves raw that a terminal may act on
 * (DEL, C1 controls such as the one-byte CSI, bidirectional controls) are written as `\uXXXX` escapes, so
 * the JSON means the same and a program reading it gets the same strings.
 *
 * @example
 * ```ts
 * jsonText({ name: 'a\u009b2Jb' }); // '{\n  "name": "a\\u009b2Jb"\n}'
 * ```
 */
export function jsonText(value: unknown, indent = 2): string {
  return JSON.stringify(value, null, indent).replace(
    RAW_IN_JSON,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
