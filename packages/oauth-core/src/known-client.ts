import { OAuthError } from './errors.js';

// The id and secret a host brings for a client it provisions (`server.clients.provision` with `clientId` and
// `clientSecret`): a first-party client whose credentials live in the host's configuration.

/**
 * A client id a host chooses: 1 to 128 URL-safe characters (letters, digits, `_`, `-`, `.`, `~`), never
 * starting with `-` (a command line such as `keyhold clients remove <id>` would read it as an option) and never
 * holding `:`, so it cannot be taken for a metadata-document URL. Generated ids (16 random bytes, base64url)
 * follow the same rule.
 */
const KNOWN_CLIENT_ID = /^[A-Za-z0-9_.~][A-Za-z0-9_.~-]{0,127}$/;

/** The shortest secret a host may bring: 32 characters (generated secrets are 43: 32 random bytes). */
export const MIN_CLIENT_SECRET_LENGTH = 32;
/** The longest: a secret is compared by its SHA-256, so length buys nothing past this. */
export const MAX_CLIENT_SECRET_LENGTH = 512;
/**
 * The least entropy a secret's characters carry, estimated from their frequencies (length × Shannon entropy
 * per character). A floor against short and repetitive secrets (`aaaa…`, `abab…`), not a strength meter, set
 * so that no random secret is refused: 16 random bytes as hex (32 characters) estimate around 115 bits (none
 * below 86 in 200 000 draws), 32 random bytes as base64url around 208.
 */
export const MIN_CLIENT_SECRET_BITS = 80;

/**
 * Checks a client id the host chose; throws `invalid_client_metadata` naming the rule it breaks.
 *
 * @example
 * ```ts
 * checkKnownClientId('keyhold-host'); // 'keyhold-host'
 * ```
 */
export function checkKnownClientId(clientId: unknown): string {
  if (typeof clientId !== 'string' || !KNOWN_CLIENT_ID.test(clientId)) {
    throw new OAuthError(
      'invalid_client_metadata',
      'clientId must be 1 to 128 characters of letters, digits, "_", "-", "." and "~", not starting with "-"',
    );
  }
  return clientId;
}

/**
 * Checks a client secret the host chose: 32 to 512 visible ASCII characters (no spaces), and not so repetitive
 * that it carries less than {@link MIN_CLIENT_SECRET_BITS} by its character frequencies. Throws
 * `invalid_client_metadata`; the message never repeats the secret.
 *
 * @example
 * ```ts
 * checkKnownClientSecret(secrets.reportsClient);
 * ```
 */
export function checkKnownClientSecret(secret: unknown): string {
  if (typeof secret !== 'string') {
    throw new OAuthError('invalid_client_metadata', 'clientSecret must be a string');
  }
  if (secret.length < MIN_CLIENT_SECRET_LENGTH || secret.length > MAX_CLIENT_SECRET_LENGTH) {
    throw new OAuthError(
      'invalid_client_metadata',
      `clientSecret must be ${MIN_CLIENT_SECRET_LENGTH} to ${MAX_CLIENT_SECRET_LENGTH} characters long (give 32 random bytes, base64url or hex)`,
    );
  }
  if (!/^[\x21-\x7e]+$/.test(secret)) {
    throw new OAuthError(
      'invalid_client_metadata',
      'clientSecret must be visible ASCII characters, without spaces',
    );
  }
  if (estimatedBits(secret) < MIN_CLIENT_SECRET_BITS) {
    throw new OAuthError(
      'invalid_client_metadata',
      'clientSecret is too repetitive to be a secret (give 32 random bytes, base64url or hex)',
    );
  }
  return secret;
}

/** Length × the Shannon entropy of the value's character frequencies, in bits. */
function estimatedBits(value: string): number {
  const counts = new Map<string, number>();
  for (const character of value) counts.set(character, (counts.get(character) ?? 0) + 1);
  let perCharacter = 0;
  for (const count of counts.values()) {
    const share = count / value.length;
    perCharacter -= share * Math.log2(share);
  }
  return perCharacter * value.length;
}
