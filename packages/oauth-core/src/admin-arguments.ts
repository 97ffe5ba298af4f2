// The argument checks of the administration calls (`server.grants`, `server.clients`, `server.listEvents`):
// one wording and one set of bounds, so a host or the CLI sees the same 400 whichever call it made. Values
// reach the stores as they are, so anything a driver would refuse (a NUL in PostgreSQL text) is refused here.
import { hasControlCharacter } from './control-characters.js';
import { OAuthError } from './errors.js';
import { isTenantSlug } from './tenant.js';

/** The largest page an administration list answers. */
const MAX_LIST_LIMIT = 1000;
/** Longer than any id this server mints or a metadata-document URL it accepts. */
const MAX_ID_LENGTH = 4096;

/** Throws `invalid_request` for a malformed tenant slug. */
export function checkTenantSlug(tenant: string): void {
  if (!isTenantSlug(tenant)) throw new OAuthError('invalid_request', 'the tenant slug is malformed');
}

/** Whether `value` is an id a record can have: 1 to 4096 characters, none of them a control character. */
export function isUsableId(value: unknown): value is string {
  return (
    typeof value === 'string' && value !== '' && value.length <= MAX_ID_LENGTH && !hasControlCharacter(value)
  );
}

/** Throws `invalid_request` naming the first present id (by its option name) that is not usable. */
export function checkIds(ids: Readonly<Record<string, string | undefined>>): void {
  for (const [name, value] of Object.entries(ids)) {
    if (value !== undefined && !isUsableId(value)) {
      throw new OAuthError('invalid_request', `${name} must be 1 to ${MAX_ID_LENGTH} printable characters`);
    }
  }
}

/** A list's page size: `limit`, default 100; anything but a whole number from 1 to 1000 is `invalid_request`. */
export function listLimit(limit: number | undefined): number {
  const checked = limit ?? 100;
  if (!Number.isInteger(checked) || checked < 1 || checked > MAX_LIST_LIMIT) {
    throw new OAuthError('invalid_request', `limit must be a whole number from 1 to ${MAX_LIST_LIMIT}`);
  }
  return checked;
}
