import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DPOP_ALGORITHMS } from '../../src/dpop/algorithms.js';
import { normalizeHtu } from '../../src/dpop/htu.js';
import type { ProofExpectations } from '../../src/dpop/proof.js';
import { MAX_PROOF_BYTES, verifyDpopProof } from '../../src/dpop/proof.js';
import { forgedProof, makeProof, type ProofKey, proofKey } from './proof-kit.js';

const URL_ = 'https://auth.example/tenant/demo/token';
const NOW = Date.parse('2026-03-01T12:00:00Z');
const expected: ProofExpectations = {
  method: 'POST',
  url: URL_,
  algorithms: DEFAULT_DPOP_ALGORITHMS,
  nowMs: NOW,
};

let key: ProofKey;
beforeAll(async () => {
  key = await proofKey();
});

async function refusal(proof: string, overrides: Partial<ProofExpectations> = {}): Promise<string> {
  const check = await verifyDpopProof(proof, { ...expected, ...overrides });
  if (check.ok) throw new Error('expected a refusal');
  return check.reason;
}

describe('a well-formed proof is accepted and names its key (RFC 9449 §4.3)', () => {
  it('accepts a proof signed by its embedded key and returns the RFC 7638 thumbprint', async () => {
    const check = await verifyDpopProof(await makeProof(key, 'POST', URL_, NOW), expected);
    expect(check.ok).toBe(true);
    if (check.ok) expect(check.proof.jkt).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('verifies the RFC 9449 §4.1 example proof and computes the §A thumbprint of its key', async () => {
    const example =
      'eyJ0eXAiOiJkcG9wK2p3dCIsImFsZyI6IkVTMjU2IiwiandrIjp7Imt0eSI6IkVDIiwieCI6Imw4dEZyaHgtMzR0VjNoUklDUkRZOXpDa0RscEJoRjQyVVFVZldWQVdCRnMiLCJ5IjoiOVZFNGpmX09rX282NHpiVFRsY3VOSmFqSG10NnY5VERWclUwQ2R2R1JEQSIsImNydiI6IlAtMjU2In19.eyJqdGkiOiItQndDM0VTYzZhY2MybFRjIiwiaHRtIjoiUE9TVCIsImh0dSI6Imh0dHBzOi8vc2VydmVyLmV4YW1wbGUuY29tL3Rva2VuIiwiaWF0IjoxNTYyMjYyNjE2fQ.2-GxA6T8lP4vfrg8v-FdWP0A0zdrj8igiMLvqRMUvwnQg4PtFLbdLXiOSsX0x7NVY-FNyJK70nfbV37xRZT3Lg';
    const check = await verifyDpopProof(example, {
      method: 'POST',
      url: 'https://server.example.com/token',
      algorithms: ['ES256'],
      nowMs: 1562262616_000,
    });
    expect(check).toMatchObject({ ok: true, proof: { jkt: '0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I' } });
  });

  it('computes ath as in RFC 9449 §7.1 (base64url SHA-256 of the access token)', async () => {
    const token = 'Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU';
    expect(createHash('sha256').update(token).digest('base64url')).toBe(
      'fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo',
    );
    const proof = await makeProof(key, 'GET', URL_, NOW, {
      ath: 'fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo',
    });
    expect((await verifyDpopProof(proof, { ...expected, method: 'GET', accessToken: token })).ok).toBe(true);
  });
});

describe('the header must be exactly one compact JWS of bounded size', () => {
  it('refuses a missing proof', async () => {
    expect(await refusal('')).toBe('dpop.proof_missing');
  });
  it('refuses two DPoP headers (joined with a comma by Node and fetch)', async () => {
    const one = await makeProof(key, 'POST', URL_, NOW);
    expect(await refusal(`${one}, ${one}`)).toBe('dpop.multiple_headers');
  });
  it(`refuses a proof larger than ${MAX_PROOF_BYTES} bytes`, async () => {
    expect(await refusal(await makeProof(key, 'POST', URL_, NOW, { jti: 'x'.repeat(MAX_PROOF_BYTES) }))).toBe(
      'dpop.too_large',
    );
  });
  it('refuses something that is not a JWT', async () => {
    expect(await refusal('not-a-jwt')).toBe('dpop.proof_malformed');
  });
});

describe('typ must be dpop+jwt and alg asymmetric and allowed (RFC 9449 §4.3, §11.6)', () => {
  it('refuses typ jwt', async () => {
    expect(await refusal(await makeProof(key, 'POST', URL_, NOW, { typ: 'jwt' }))).toBe('dpop.typ_invalid');
  });
  it('refuses alg none', async () => {
    expect(await refusal(forgedProof('none', key, 'POST', URL_, NOW))).toBe('dpop.alg_unsupported');
  });
  it('refuses HS256', async () => {
    expect(await refusal(forgedProof('HS256', key, 'POST', URL_, NOW))).toBe('dpop.alg_unsupported');
  });
  it('refuses an asymmetric alg the server does not list', async () => {
    expect(await refusal(await makeProof(key, 'POST', URL_, NOW), { algorithms: ['RS256'] })).toBe(
      'dpop.alg_unsupported',
    );
  });
});

describe('the signature verifies with the embedded public key, through jose', () => {
  it('refuses a tampered signature', async () => {
    expect(await refusal(await makeProof(key, 'POST', URL_, NOW, { tamperSignature: true }))).toBe(
      'dpop.signature_invalid',
    );
  });
  it('refuses a proof whose jwk holds the private key', async () => {
    expect(await refusal(await makeProof(key, 'POST', URL_, NOW, { embedPrivateKey: true }))).toBe(
      'dpop.jwk_private',
    );
  });
  it('refuses a proof without jwk', async () => {
    expect(await refusal(await makeProof(key, 'POST', URL_, NOW, { omit: ['jwk'] }))).toBe(
      'dpop.jwk_invalid',
    );
  });
  it('refuses a proof signed by another key than the one it embeds', async () => {
    const other = await proofKey();
    expect(await refusal(await makeProof(key, 'POST', URL_, NOW, { jwk: other.publicJwk }))).toBe(
      'dpop.signature_invalid',
    );
  });
});

describe('jti, htm, htu and iat are required (RFC 9449 §4.2)', () => {
  for (const claim of ['jti', 'htm', 'htu', 'iat'] as const) {
    it(`refuses a proof without ${claim}`, async () => {
      expect(await refusal(await makeProof(key, 'POST', URL_, NOW, { omit: [claim] }))).toBe(
        'dpop.claim_missing',
      );
    });
  }
  it('refuses an oversized jti', async () => {
    expect(await refusal(await makeProof(key, 'POST', URL_, NOW, { jti: 'j'.repeat(257) }))).toBe(
      'dpop.jti_invalid',
    );
  });
});

describe('htm is the method and htu the endpoint public URL (RFC 9449 §4.3 (8), (9))', () => {
  it('refuses another method', async () => {
    expect(await refusal(await makeProof(key, 'GET', URL_, NOW))).toBe('dpop.htm_mismatch');
  });
  it('refuses another URL', async () => {
    expect(await refusal(await makeProof(key, 'POST', 'https://wrong.example.com/token', NOW))).toBe(
      'dpop.htu_mismatch',
    );
  });
  it('refuses an htu with a query or a fragment', async () => {
    expect(await refusal(await makeProof(key, 'POST', `${URL_}?x=1`, NOW))).toBe('dpop.htu_mismatch');
    expect(await refusal(await makeProof(key, 'POST', `${URL_}#f`, NOW))).toBe('dpop.htu_mismatch');
  });
  it('accepts an htu that differs only by RFC 3986 normalisation (case, default port, percent-encoding)', async () => {
    const spelled = 'HTTPS://Auth.Example:443/tenant/%64emo/token';
    expect((await verifyDpopProof(await makeProof(key, 'POST', spelled, NOW), expected)).ok).toBe(true);
    expect(normalizeHtu(spelled)).toBe(URL_);
  });
  it('refuses a trailing-slash variant (no leniency beyond normalisation)', async () => {
    expect(await refusal(await makeProof(key, 'POST', `${URL_}/`, NOW))).toBe('dpop.htu_mismatch');
  });
});

describe('iat is within ±300 s of the server clock', () => {
  it('accepts a proof 300 s old or 300 s ahead', async () => {
    for (const delta of [-300, 300]) {
      const proof = await makeProof(key, 'POST', URL_, NOW, { iatSeconds: NOW / 1000 + delta });
      expect((await verifyDpopProof(proof, expected)).ok).toBe(true);
    }
  });
  it('refuses a proof 303 s old or 303 s ahead', async () => {
    for (const delta of [-303, 303]) {
      expect(await refusal(await makeProof(key, 'POST', URL_, NOW, { iatSeconds: NOW / 1000 + delta }))).toBe(
        'dpop.iat_out_of_window',
      );
    }
  });
});

describe('at a resource, ath binds the proof to the access token (RFC 9449 §4.3 (12))', () => {
  it('refuses a proof without ath', async () => {
    expect(await refusal(await makeProof(key, 'POST', URL_, NOW), { accessToken: 'token' })).toBe(
      'dpop.ath_mismatch',
    );
  });
  it('refuses an ath of another token', async () => {
    expect(
      await refusal(await makeProof(key, 'POST', URL_, NOW, { accessToken: 'other' }), {
        accessToken: 'token',
      }),
    ).toBe('dpop.ath_mismatch');
  });
});
