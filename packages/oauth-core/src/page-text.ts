import { escapeHtml } from '@keyhold/internal';

/**
 * Characters that reorder or hide the text around them: the control characters (C0, DEL, C1), the
 * bidirectional embeddings, overrides and isolates with the marks (U+202A–U+202E, U+2066–U+2069,
 * U+200E/F, U+061C), and the line and paragraph separators. A client name holding U+202E would otherwise
 * show `evil.example` as something else entirely.
 */
const DECEPTIVE_CHARACTERS = /[\p{Cc}\u061C\u200E\u200F\u2028\u2029\u202A-\u202E\u2066-\u2069]/gu;

/** Text with each character that could reorder or hide its surroundings shown as U+FFFD (not escaped). */
export function neutralised(value: string): string {
  return value.replace(DECEPTIVE_CHARACTERS, '\uFFFD');
}

/**
 * Client-supplied text as a page shows it: each character that could reorder or hide the text around it
 * becomes U+FFFD (visible, so the reader sees something was there), then the result is HTML-escaped.
 */
export function shown(value: string): string {
  return escapeHtml(neutralised(value));
}

/** Escapes `template` and fills its `{key}` placeholders with the given (already safe) HTML. */
export function fill(template: string, values: Readonly<Record<string, string>> = {}): string {
  return template
    .split(/(\{[A-Za-z]+\})/)
    .map((part) => {
      const key = /^\{([A-Za-z]+)\}$/.exec(part)?.[1];
      return key !== undefined && key in values ? values[key]! : escapeHtml(part);
    })
    .join('');
}
