// scrypt (RFC 7914) for runtimes without node:crypto: PBKDF2-HMAC-SHA256 through WebCrypto around ROMix,
// BlockMix and Salsa20/8 in plain TypeScript. WebCrypto has no scrypt, and the token vault's local keys were
// always derived with scrypt, so a worker must derive the same bytes to open values sealed on Node. Where
// node:crypto is reachable its native scrypt is used instead (see scrypt.ts): it is faster and runs off the
// event loop. Tests hold this file to the RFC 7914 §12 vectors and to node:crypto on random inputs.
import { CoreError } from '@keyhold/core';

/**
 * The scrypt cost parameters, with node:crypto's `maxmem` as `maxMemoryBytes`.
 *
 * @example
 * ```ts
 * const parameters: ScryptParameters = {
 *   cost: 2 ** 15, blockSize: 8, parallelization: 1, keyLengthBytes: 32, maxMemoryBytes: 64 * 1024 * 1024,
 * };
 * ```
 */
export interface ScryptParameters {
  /** N: the CPU and memory cost, a power of two above 1. */
  readonly cost: number;
  /** r: the block size factor (a block is 128·r bytes). */
  readonly blockSize: number;
  /** p: how many independent ROMix lanes. */
  readonly parallelization: number;
  /** dkLen: the length of the derived key. */
  readonly keyLengthBytes: number;
  /** The most memory one derivation may take: 128·r·(N + 2) + 128·r·p bytes must fit (node's `maxmem`). */
  readonly maxMemoryBytes: number;
}

const MAX_UINT32 = 0xffff_ffff;

function refuse(message: string): never {
  throw new CoreError('ERR_INVALID_OPTIONS', `scrypt: ${message}`);
}

/**
 * Checks scrypt parameters against RFC 7914 §2 and the memory they would take against `maxMemoryBytes`
 * (OpenSSL's accounting, which node:crypto applies: 128·r·(N + 2) bytes of V plus 128·r·p bytes of B).
 * Throws a {@link CoreError} `ERR_INVALID_OPTIONS`.
 *
 * @example
 * ```ts
 * assertScryptParameters({ cost: 1024, blockSize: 8, parallelization: 1, keyLengthBytes: 32, maxMemoryBytes: 2 ** 21 });
 * ```
 */
export function assertScryptParameters(parameters: ScryptParameters): void {
  const { cost, blockSize, parallelization, keyLengthBytes, maxMemoryBytes } = parameters;
  if (!Number.isSafeInteger(cost) || cost < 2 || (cost & (cost - 1)) !== 0 || cost > 2 ** 31) {
    refuse('cost (N) must be a power of two from 2 to 2^31');
  }
  if (!Number.isSafeInteger(blockSize) || blockSize < 1) refuse('blockSize (r) must be a whole number ≥ 1');
  // §2: N < 2^(128·r/8); with r ≥ 1 that is N < 2^16 for r = 1 and no limit under 2^31 from r = 2 on.
  if (blockSize * 16 < 31 && cost >= 2 ** (blockSize * 16)) refuse('cost (N) must be below 2^(16·r)');
  // §2: p ≤ ((2^32 − 1) · hLen) / MFLen, with hLen = 32 and MFLen = 128·r.
  if (
    !Number.isSafeInteger(parallelization) ||
    parallelization < 1 ||
    parallelization > (MAX_UINT32 * 32) / (128 * blockSize)
  ) {
    refuse('parallelization (p) must be a whole number from 1 to (2^32 − 1)·32 / (128·r)');
  }
  if (!Number.isSafeInteger(keyLengthBytes) || keyLengthBytes < 1 || keyLengthBytes > MAX_UINT32 * 32) {
    refuse('keyLengthBytes must be a whole number from 1 to (2^32 − 1)·32');
  }
  const needed = 128 * blockSize * (cost + 2) + 128 * blockSize * parallelization;
  if (!(needed <= maxMemoryBytes)) {
    refuse(`N = ${cost}, r = ${blockSize}, p = ${parallelization} need ${needed} bytes, over maxMemoryBytes`);
  }
}

const rotl = (value: number, bits: number): number => (value << bits) | (value >>> (32 - bits));

/**
 * Salsa20/8 core (RFC 7914 §3) of the XOR of two 16-word blocks, `a` at `ai` and `b` at `bi`, written to `out`
 * at `oi`: BlockMix's `X ← Salsa(X xor B[i])` in one pass, without a scratch copy.
 */
function xorSalsa20x8(
  a: Uint32Array,
  ai: number,
  b: Uint32Array,
  bi: number,
  out: Uint32Array,
  oi: number,
): void {
  const y0 = ((a[ai + 0] as number) ^ (b[bi + 0] as number)) | 0;
  const y1 = ((a[ai + 1] as number) ^ (b[bi + 1] as number)) | 0;
  const y2 = ((a[ai + 2] as number) ^ (b[bi + 2] as number)) | 0;
  const y3 = ((a[ai + 3] as number) ^ (b[bi + 3] as number)) | 0;
  const y4 = ((a[ai + 4] as number) ^ (b[bi + 4] as number)) | 0;
  const y5 = ((a[ai + 5] as number) ^ (b[bi + 5] as number)) | 0;
  const y6 = ((a[ai + 6] as number) ^ (b[bi + 6] as number)) | 0;
  const y7 = ((a[ai + 7] as number) ^ (b[bi + 7] as number)) | 0;
  const y8 = ((a[ai + 8] as number) ^ (b[bi + 8] as number)) | 0;
  const y9 = ((a[ai + 9] as number) ^ (b[bi + 9] as number)) | 0;
  const y10 = ((a[ai + 10] as number) ^ (b[bi + 10] as number)) | 0;
  const y11 = ((a[ai + 11] as number) ^ (b[bi + 11] as number)) | 0;
  const y12 = ((a[ai + 12] as number) ^ (b[bi + 12] as number)) | 0;
  const y13 = ((a[ai + 13] as number) ^ (b[bi + 13] as number)) | 0;
  const y14 = ((a[ai + 14] as number) ^ (b[bi + 14] as number)) | 0;
  const y15 = ((a[ai + 15] as number) ^ (b[bi + 15] as number)) | 0;
  let x0 = y0;
  let x1 = y1;
  let x2 = y2;
  let x3 = y3;
  let x4 = y4;
  let x5 = y5;
  let x6 = y6;
  let x7 = y7;
  let x8 = y8;
  let x9 = y9;
  let x10 = y10;
  let x11 = y11;
  let x12 = y12;
  let x13 = y13;
  let x14 = y14;
  let x15 = y15;
  for (let round = 0; round < 8; round += 2) {
    // Columns.
    x4 ^= rotl((x0 + x12) | 0, 7);
    x8 ^= rotl((x4 + x0) | 0, 9);
    x12 ^= rotl((x8 + x4) | 0, 13);
    x0 ^= rotl((x12 + x8) | 0, 18);
    x9 ^= rotl((x5 + x1) | 0, 7);
    x13 ^= rotl((x9 + x5) | 0, 9);
    x1 ^= rotl((x13 + x9) | 0, 13);
    x5 ^= rotl((x1 + x13) | 0, 18);
    x14 ^= rotl((x10 + x6) | 0, 7);
    x2 ^= rotl((x14 + x10) | 0, 9);
    x6 ^= rotl((x2 + x14) | 0, 13);
    x10 ^= rotl((x6 + x2) | 0, 18);
    x3 ^= rotl((x15 + x11) | 0, 7);
    x7 ^= rotl((x3 + x15) | 0, 9);
    x11 ^= rotl((x7 + x3) | 0, 13);
    x15 ^= rotl((x11 + x7) | 0, 18);
    // Rows.
    x1 ^= rotl((x0 + x3) | 0, 7);
    x2 ^= rotl((x1 + x0) | 0, 9);
    x3 ^= rotl((x2 + x1) | 0, 13);
    x0 ^= rotl((x3 + x2) | 0, 18);
    x6 ^= rotl((x5 + x4) | 0, 7);
    x7 ^= rotl((x6 + x5) | 0, 9);
    x4 ^= rotl((x7 + x6) | 0, 13);
    x5 ^= rotl((x4 + x7) | 0, 18);
    x11 ^= rotl((x10 + x9) | 0, 7);
    x8 ^= rotl((x11 + x10) | 0, 9);
    x9 ^= rotl((x8 + x11) | 0, 13);
    x10 ^= rotl((x9 + x8) | 0, 18);
    x12 ^= rotl((x15 + x14) | 0, 7);
    x13 ^= rotl((x12 + x15) | 0, 9);
    x14 ^= rotl((x13 + x12) | 0, 13);
    x15 ^= rotl((x14 + x13) | 0, 18);
  }
  out[oi + 0] = (y0 + x0) | 0;
  out[oi + 1] = (y1 + x1) | 0;
  out[oi + 2] = (y2 + x2) | 0;
  out[oi + 3] = (y3 + x3) | 0;
  out[oi + 4] = (y4 + x4) | 0;
  out[oi + 5] = (y5 + x5) | 0;
  out[oi + 6] = (y6 + x6) | 0;
  out[oi + 7] = (y7 + x7) | 0;
  out[oi + 8] = (y8 + x8) | 0;
  out[oi + 9] = (y9 + x9) | 0;
  out[oi + 10] = (y10 + x10) | 0;
  out[oi + 11] = (y11 + x11) | 0;
  out[oi + 12] = (y12 + x12) | 0;
  out[oi + 13] = (y13 + x13) | 0;
  out[oi + 14] = (y14 + x14) | 0;
  out[oi + 15] = (y15 + x15) | 0;
}

/**
 * scryptBlockMix (RFC 7914 §4) of the 2·r 64-byte blocks of `input` (as words) into `output`: the even
 * blocks' results first, then the odd ones'.
 */
function blockMix(input: Uint32Array, output: Uint32Array, r: number): void {
  // X starts as the last input block; each result is the next X, read back from where it was written.
  let previous = input;
  let previousOffset = (2 * r - 1) * 16;
  for (let i = 0; i < 2 * r; i++) {
    const offset = ((i >> 1) + (i & 1) * r) * 16;
    xorSalsa20x8(previous, previousOffset, input, i * 16, output, offset);
    previous = output;
    previousOffset = offset;
  }
}

/** scryptROMix (RFC 7914 §5) on one 128·r-byte lane of words, in place; `v` holds N lanes. */
function roMix(lane: Uint32Array, r: number, n: number, v: Uint32Array): void {
  const words = 32 * r;
  let x = Uint32Array.from(lane);
  let y = new Uint32Array(words);
  for (let i = 0; i < n; i++) {
    v.set(x, i * words);
    blockMix(x, y, r);
    const swap = x;
    x = y;
    y = swap;
  }
  const last = (2 * r - 1) * 16;
  for (let i = 0; i < n; i++) {
    // Integerify: the first little-endian word of the last 64-byte block; N ≤ 2^31, so its low 32 bits do.
    const offset = ((x[last] as number) & (n - 1)) * words;
    for (let k = 0; k < words; k++) x[k] = (x[k] as number) ^ (v[offset + k] as number);
    blockMix(x, y, r);
    const swap = x;
    x = y;
    y = swap;
  }
  lane.set(x);
}

async function pbkdf2Sha256Once(
  password: CryptoKey,
  salt: Uint8Array<ArrayBuffer>,
  lengthBytes: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const bits = await crypto.subtle.deriveBits(
    { name: 'PBKDF2', hash: 'SHA-256', salt, iterations: 1 },
    password,
    lengthBytes * 8,
  );
  return new Uint8Array(bits);
}

/**
 * scrypt (RFC 7914) in plain TypeScript over WebCrypto's PBKDF2: the same bytes as node:crypto's `scrypt`
 * for the same inputs. It runs on the calling thread (node:crypto's runs in the thread pool), so use it only
 * where node:crypto is missing; {@link scrypt} chooses. Refuses parameters that break RFC 7914 §2 or need
 * more than `maxMemoryBytes` with a {@link CoreError} `ERR_INVALID_OPTIONS`, before allocating anything.
 *
 * @example
 * ```ts
 * const key = await scryptPortable(masterKey, new TextEncoder().encode('salt'), {
 *   cost: 2 ** 15, blockSize: 8, parallelization: 1, keyLengthBytes: 32, maxMemoryBytes: 64 * 1024 * 1024,
 * });
 * ```
 */
export async function scryptPortable(
  password: Uint8Array,
  salt: Uint8Array,
  parameters: ScryptParameters,
): Promise<Uint8Array<ArrayBuffer>> {
  assertScryptParameters(parameters);
  const { cost: n, blockSize: r, parallelization: p, keyLengthBytes } = parameters;
  const hmacKey = await crypto.subtle.importKey('raw', new Uint8Array(password), 'PBKDF2', false, [
    'deriveBits',
  ]);
  const laneBytes = 128 * r;
  const b = await pbkdf2Sha256Once(hmacKey, new Uint8Array(salt), p * laneBytes);
  // Salsa20/8 works on little-endian words; DataView reads them so on any host byte order.
  const bytes = new DataView(b.buffer);
  const words = new Uint32Array(b.length / 4);
  for (let i = 0; i < words.length; i++) words[i] = bytes.getUint32(i * 4, true);
  const v = new Uint32Array(32 * r * n);
  for (let lane = 0; lane < p; lane++) roMix(words.subarray(lane * 32 * r, (lane + 1) * 32 * r), r, n, v);
  for (let i = 0; i < words.length; i++) bytes.setUint32(i * 4, words[i] as number, true);
  return pbkdf2Sha256Once(hmacKey, b, keyLengthBytes);
}
