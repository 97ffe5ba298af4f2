/**
 * The media type of a `Content-Type` header, lower-cased and without parameters, or `undefined` when the
 * header is absent or empty.
 *
 * @example
 * ```ts
 * mediaType('Application/JSON; charset=utf-8'); // 'application/json'
 * ```
 */
export function mediaType(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  const type = contentType.split(';', 1)[0]?.trim().toLowerCase();
  return type === '' ? undefined : type;
}
