import { type Clock, type Logger, silentLogger, systemClock } from '@keyhold/core';
import { optionValidators } from '@keyhold/internal';
import { generateClaimCode, normalizeClaimCode } from './code.js';
import { ClaimCodesError } from './errors.js';
import { resolveScopeDir } from './scope-dir.js';
import type { ClaimRecord, ClaimStore } from './storage.js';

/** 24 hours, the default claim lifetime. */
const DEFAULT_TTL_SECONDS = 24 * 60 * 60;
/** 365 days. */
const MAX_TTL_SECONDS = 365 * 24 * 60 * 60;
const MAX_LABEL_LENGTH = 200;
const MAX_CREATE_ATTEMPTS = 8;
const check = optionValidators(ClaimCodesError);
// C0 and C1 control characters: a label is printed in terminals, where they would be escape sequences.
const CONTROL_CHARACTERS = /\p{Cc}/u;

/**
 * Options of {@link createClaims}.
 */
export interface ClaimsOptions {
  /** Where claims live. */
  readonly store: ClaimStore;
  /** Default: the system clock. */
  readonly clock?: Clock;
  /** Default: silent. Only code prefixes are ever logged. */
  readonly logger?: Logger;
  /** Lifetime when `create` is given none. Default 86 400 (24 hours). */
  readonly defaultTtlSeconds?: number;
  /** Longest lifetime `create` accepts. Default 31 536 000 (365 days). */
  readonly maxTtlSeconds?: number;
  /**
   * Turns `scopeDir` into the canonical directory a claim keeps. Default: the file-system resolver
   * (absolute, symlink-free, must exist; `ERR_INVALID_SCOPE` otherwise), loaded on first use so the main
   * entry runs where there is no file system; pass your own on such a runtime.
   */
  readonly resolveScopeDir?: (dir: string) => Promise<string>;
}

/**
 * What {@link Claims.create} takes.
 *
 * @example
 * ```ts
 * await claims.create({ scopeDir: '/workspace/proj', ttlSeconds: 3600, label: 'review bot' });
 * ```
 */
export interface CreateClaimInput {
  /** The directory the claim narrows sessions to; resolved to an absolute, symlink-free path. */
  readonly scopeDir: string;
  /** Default: the service's `defaultTtlSeconds`. */
  readonly ttlSeconds?: number;
  /** Up to 200 characters, no control characters; an empty label is omitted. */
  readonly label?: string;
}

/**
 * The outcome of validating a presented code: `ok` with the claim, or why not (`malformed` carries a
 * sentence for a human).
 *
 * @example
 * ```ts
 * const result = await claims.validate(header);
 * if (result.ok) narrowTo(result.claim.scopeDir);
 * ```
 */
export type ClaimValidation =
  | { readonly ok: true; readonly claim: ClaimRecord }
  | { readonly ok: false; readonly reason: 'expired' | 'unknown'; readonly code: string }
  | { readonly ok: false; readonly reason: 'malformed'; readonly message: string };

/**
 * The outcome of revoking a code: `ok` with the revoked claim, or why not.
 *
 * @example
 * ```ts
 * const result = await claims.revoke('abc-def');
 * if (!result.ok && result.reason === 'unknown') console.error('no such code');
 * ```
 */
export type ClaimRevocation =
  | { readonly ok: true; readonly claim: ClaimRecord }
  | { readonly ok: false; readonly reason: 'unknown'; readonly code: string }
  | { readonly ok: false; readonly reason: 'malformed'; readonly message: string };

/**
 * The claim service: creates, validates, lists and revokes claim codes over a {@link ClaimStore}.
 *
 * @example
 * ```ts
 * const claim = await claims.create({ scopeDir: process.cwd() });
 * console.log(formatClaimCode(claim.code));
 * ```
 */
export interface Claims {
  /** Creates a new code (never reusing a stored one). Throws `ERR_INVALID_SCOPE`, `ERR_INVALID_TTL`, `ERR_INVALID_LABEL`. */
  create(input: CreateClaimInput): Promise<ClaimRecord>;
  /** Checks a code as a person or client typed it; an expired record found on the way is deleted. */
  validate(input: string): Promise<ClaimValidation>;
  /** Active claims, soonest expiry first; expired records are purged first. */
  list(): Promise<ClaimRecord[]>;
  /** Removes a code with immediate effect. */
  revoke(input: string): Promise<ClaimRevocation>;
}

/**
 * Creates the claim service. Options are validated here (`ERR_INVALID_OPTIONS`).
 *
 * @example
 * ```ts
 * const claims = createClaims({ store: createFileClaimStore({ dataDir: process.env.KEYHOLD_DATA_DIR ?? '.keyhold' }) });
 * const result = await claims.validate('ABC-DEF');
 * ```
 */
export function createClaims(options: ClaimsOptions): Claims {
  const { store } = options;
  // The store is first called by `create` or `validate`: its shape is checked here so a wiring mistake fails
  // at start-up rather than on the first code a person presents.
  const storeMethods = ['insert', 'get', 'list', 'delete', 'deleteExpired'] as const;
  if (storeMethods.some((method) => typeof store?.[method] !== 'function')) {
    throw check.invalid(`store must be a ClaimStore (${storeMethods.join(', ')})`);
  }
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const maxTtlSeconds = check.positiveInteger('maxTtlSeconds', options.maxTtlSeconds, MAX_TTL_SECONDS);
  const defaultTtlSeconds = check.integerInRange(
    'defaultTtlSeconds',
    options.defaultTtlSeconds,
    DEFAULT_TTL_SECONDS,
    {
      min: 1,
      max: maxTtlSeconds,
    },
  );
  if (options.resolveScopeDir !== undefined && typeof options.resolveScopeDir !== 'function') {
    throw check.invalid('resolveScopeDir must be a function');
  }
  const resolveDir = options.resolveScopeDir ?? resolveScopeDir;

  return {
    async create(input) {
      const ttlSeconds = input.ttlSeconds ?? defaultTtlSeconds;
      if (!isPositiveInteger(ttlSeconds) || ttlSeconds > maxTtlSeconds) {
        throw new ClaimCodesError(
          'ERR_INVALID_TTL',
          `The lifetime must be a whole number of seconds from 1 to ${maxTtlSeconds}.`,
        );
      }
      const label = input.label === undefined || input.label === '' ? undefined : input.label;
      if (label !== undefined && (label.length > MAX_LABEL_LENGTH || CONTROL_CHARACTERS.test(label))) {
        throw new ClaimCodesError(
          'ERR_INVALID_LABEL',
          `A label has at most ${MAX_LABEL_LENGTH} characters and no control characters.`,
        );
      }
      const scopeDir = await resolveDir(input.scopeDir);
      for (let attempt = 0; attempt < MAX_CREATE_ATTEMPTS; attempt++) {
        const createdAt = clock.now();
        const record: ClaimRecord = {
          code: generateClaimCode(),
          scopeDir,
          createdAt,
          expiresAt: createdAt + ttlSeconds * 1000,
          ...(label === undefined ? {} : { label }),
        };
        if (await store.insert(record)) {
          logger.info(
            { code: codePrefix(record.code), scopeDir, expiresAt: record.expiresAt },
            'claim created',
          );
          return record;
        }
      }
      throw new ClaimCodesError('ERR_CODE_COLLISION', 'No unused claim code was found; try again.');
    },

    async validate(input) {
      const normalized = normalizeClaimCode(input);
      if (!normalized.ok) return { ok: false, reason: 'malformed', message: normalized.message };
      const { code } = normalized;
      const record = await store.get(code);
      if (record === undefined) return { ok: false, reason: 'unknown', code };
      if (clock.now() >= record.expiresAt) {
        await store.delete(code);
        logger.debug({ code: codePrefix(code) }, 'expired claim purged');
        return { ok: false, reason: 'expired', code };
      }
      return { ok: true, claim: record };
    },

    async list() {
      const now = clock.now();
      const purged = await store.deleteExpired(now);
      if (purged > 0) logger.debug({ purged }, 'expired claims purged');
      const records = await store.list();
      return records.filter((record) => record.expiresAt > now).sort((a, b) => a.expiresAt - b.expiresAt);
    },

    async revoke(input) {
      const normalized = normalizeClaimCode(input);
      if (!normalized.ok) return { ok: false, reason: 'malformed', message: normalized.message };
      const { code } = normalized;
      const record = await store.get(code);
      if (record === undefined) return { ok: false, reason: 'unknown', code };
      const removed = await store.delete(code);
      if (!removed || clock.now() >= record.expiresAt) return { ok: false, reason: 'unknown', code };
      logger.info({ code: codePrefix(code) }, 'claim revoked');
      return { ok: true, claim: record };
    },
  };
}

function isPositiveInteger(value: number): boolean {
  return Number.isSafeInteger(value) && value > 0;
}

/** The first two characters: enough to tell codes apart in a log, far too few to use one. */
function codePrefix(code: string): string {
  return `${code.slice(0, 2)}…`;
}
