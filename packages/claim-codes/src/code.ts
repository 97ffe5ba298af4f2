/**
 * The 31 characters a claim code is made of: digits and Latin capitals without the lookalikes
 * 0, O, 1, I and L.
 *
 * @example
 * ```ts
 * CLAIM_CODE_ALPHABET.length; // 31
 * ```
 */
export const CLAIM_CODE_ALPHABET: string = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';

/**
 * The number of characters in a claim code.
 *
 * @example
 * ```ts
 * CLAIM_CODE_LENGTH; // 6
 * ```
 */
export const CLAIM_CODE_LENGTH: number = 6;

const EXACT_CODE = new RegExp(`^([${CLAIM_CODE_ALPHABET}]{3})-?([${CLAIM_CODE_ALPHABET}]{3})$`);

const LOOKALIKES: Readonly<Record<string, string>> = {
  '0': 'it looks like O',
  O: 'it looks like 0',
  '1': 'it looks like I and L',
  I: 'it looks like 1',
  L: 'it looks like 1',
};

/**
 * Creates a new claim code in its stored form (6 uppercase characters, no dash). Each character is drawn
 * from WebCrypto's generator by rejection sampling (a byte of 248 or more is drawn again: 248 is the largest
 * multiple of 31 below 256), so every code is uniform over the 31^6 ≈ 887 million possibilities.
 *
 * @example
 * ```ts
 * const code = generateClaimCode(); // 'K7QX2M'
 * ```
 */
export function generateClaimCode(): string {
  const limit = 256 - (256 % CLAIM_CODE_ALPHABET.length);
  let code = '';
  while (code.length < CLAIM_CODE_LENGTH) {
    for (const byte of crypto.getRandomValues(new Uint8Array(CLAIM_CODE_LENGTH))) {
      if (byte < limit && code.length < CLAIM_CODE_LENGTH)
        code += CLAIM_CODE_ALPHABET[byte % CLAIM_CODE_ALPHABET.length];
    }
  }
  return code;
}

/**
 * The result of {@link normalizeClaimCode}: the stored form, or why the input cannot be a claim code.
 *
 * @example
 * ```ts
 * const result: NormalizedClaimCode = normalizeClaimCode(input);
 * if (!result.ok) console.error(result.message);
 * ```
 */
export type NormalizedClaimCode =
  | { readonly ok: true; readonly code: string }
  | {
      readonly ok: false;
      readonly reason: 'empty' | 'lookalike' | 'invalid_character' | 'length' | 'dash';
      /** A sentence for a human that names the offending character where there is one. */
      readonly message: string;
    };

/**
 * Turns what a person typed into the stored form: surrounding spaces dropped, letters uppercased, and the
 * display dash after the third character removed, so `abc-def`, `ABCDEF` and ` ABC-DEF ` are one code.
 * Input that cannot be a code is explained, naming a lookalike character (0, O, 1, I, L) when there is one.
 *
 * @example
 * ```ts
 * normalizeClaimCode('abc-def'); // { ok: true, code: 'ABCDEF' }
 * normalizeClaimCode('AB0-DEF'); // { ok: false, reason: 'lookalike', message: 'Claim codes never contain "0" …' }
 * ```
 */
export function normalizeClaimCode(input: string): NormalizedClaimCode {
  // Fast path for the common case, a code exactly as displayed or stored: this runs on every MCP request.
  const exact = EXACT_CODE.exec(input);
  if (exact !== null) return { ok: true, code: `${exact[1]}${exact[2]}` };
  const trimmed = input.trim();
  if (trimmed === '') return { ok: false, reason: 'empty', message: 'The claim code is empty.' };
  for (const character of trimmed) {
    const why = LOOKALIKES[character.toUpperCase()];
    if (why !== undefined) {
      return {
        ok: false,
        reason: 'lookalike',
        message: `Claim codes never contain "${character}" (${why}); check the code and type it again.`,
      };
    }
  }
  for (const character of trimmed) {
    if (character !== '-' && !CLAIM_CODE_ALPHABET.includes(character.toUpperCase())) {
      return {
        ok: false,
        reason: 'invalid_character',
        message: `"${printable(character)}" is not a claim-code character; codes use ${CLAIM_CODE_ALPHABET} and one dash.`,
      };
    }
  }
  const upper = trimmed.toUpperCase();
  const characters = upper.replaceAll('-', '');
  if (characters.length !== CLAIM_CODE_LENGTH) {
    return {
      ok: false,
      reason: 'length',
      message: `A claim code has ${CLAIM_CODE_LENGTH} characters (like ABC-DEF); this one has ${characters.length}.`,
    };
  }
  if (upper.includes('-') && (upper.length !== CLAIM_CODE_LENGTH + 1 || upper[3] !== '-')) {
    return {
      ok: false,
      reason: 'dash',
      message: 'A claim code has at most one dash, after the third character.',
    };
  }
  return { ok: true, code: characters };
}

/**
 * The display form of a stored code: a dash after the third character (`ABCDEF` → `ABC-DEF`).
 *
 * @example
 * ```ts
 * formatClaimCode('ABCDEF'); // 'ABC-DEF'
 * ```
 */
export function formatClaimCode(code: string): string {
  return `${code.slice(0, 3)}-${code.slice(3)}`;
}

function printable(character: string): string {
  const point = character.codePointAt(0) ?? 0;
  return point < 0x20 || point === 0x7f ? `\\u${point.toString(16).padStart(4, '0')}` : character;
}
