import { createHash, generateKeyPairSync, type KeyObject, randomUUID, sign } from 'node:crypto';
import type { OnceStore } from '@keyhold/core';
import { createManualClock } from '@keyhold/core';
import type { ProtectedResource } from '@keyhold/oauth-core';
import { createAuthorizationServer, createMemoryStorage, generateSigningKey } from '@keyhold/oauth-core';
import { afterAll, bench, describe } from 'vitest';
import { createPostgresOnceStore } from '../src/once-store.js';
import { createIsolatedPool, requirePostgres } from '../test/postgres.js';

// What a DPoP proof (RFC 9449) costs per request, measured against Bearer in the same run: at the token
// endpoint (client_credentials, ES256 access token, `server.fetch` with a web Request) and at a resource
// (`protectedResource().verify`, the bearer policy the MCP endpoint runs). The DPoP side pays one proof
// verification (jose, the embedded ES256 key) and one spend-once write of the proof's `jti`: in the memory
// OnceStore, and in PostgreSQL's (one INSERT round trip) with every other store still in memory, so the
// difference between the two DPoP rows is the write alone. No nonces: their HMAC is computed once a minute
// and compared per request, which does not show here.
//
// Proofs are the client's work, not the server's: every proof a run can use is signed before it starts
// (node:crypto), each with its own `jti`, so a measured iteration only spends one. A run that uses them up
// stops with an error instead of signing inside the measured loop: raise BENCH_DPOP_PROOFS.

const BASE_URL = 'https://auth.example';
const ISSUER = `${BASE_URL}/tenant/demo`;
const TOKEN_URL = `${ISSUER}/token`;
const RESOURCE = `${ISSUER}/mcp`;
const PROOFS = Number(process.env['BENCH_DPOP_PROOFS'] ?? 40_000);
// Round trips to PostgreSQL make its cases about ten times slower: fewer proofs cover them.
const PROOFS_POSTGRES = Math.ceil(PROOFS / 4);
const NOW_MS = Date.parse('2026-03-01T12:00:00Z');

/** The client's DPoP key and its public JWK (what every proof embeds). */
interface ClientKey {
  readonly privateKey: KeyObject;
  readonly header: string;
}

function clientKey(): ClientKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { kty, crv, x, y } = publicKey.export({ format: 'jwk' });
  const header = { alg: 'ES256', typ: 'dpop+jwt', jwk: { kty, crv, x, y } };
  return { privateKey, header: Buffer.from(JSON.stringify(header)).toString('base64url') };
}

function proof(key: ClientKey, htu: string, accessToken?: string): string {
  const claims = {
    jti: randomUUID(),
    htm: 'POST',
    htu,
    iat: Math.floor(NOW_MS / 1000),
    ...(accessToken === undefined
      ? {}
      : { ath: createHash('sha256').update(accessToken).digest('base64url') }),
  };
  const input = `${key.header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  const signature = sign('sha256', Buffer.from(input), { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

/** Proofs signed up front; `next()` hands out each once. */
function proofPool(count: number, make: () => string): { next(): string } {
  const proofs = Array.from({ length: count }, make);
  let used = 0;
  return {
    next() {
      const value = proofs[used];
      if (value === undefined) {
        throw new Error(`all ${count} pre-signed DPoP proofs were used: raise BENCH_DPOP_PROOFS`);
      }
      used += 1;
      return value;
    },
  };
}

interface Deployment {
  tokenRequest(dpop?: string): Promise<void>;
  resource: ProtectedResource;
  bearerToken: string;
  boundToken: string;
}

/** One authorization server with a confidential machine client, its spend-once store chosen by the caller. */
async function deployment(key: ClientKey, onceStore?: OnceStore): Promise<Deployment> {
  const clock = createManualClock(NOW_MS);
  const storage = createMemoryStorage();
  const tenant = { signingKeys: [await generateSigningKey('ES256', 'k1')] };
  const server = createAuthorizationServer({
    baseUrl: BASE_URL,
    tenants: { get: (slug) => (slug === 'demo' ? tenant : undefined) },
    storage: onceStore === undefined ? storage : { ...storage, onceStore },
    clock,
  });
  const created = await server.clients.provision('demo', {
    grantTypes: ['client_credentials'],
    scope: 'mcp:tools',
  });
  const basic = `Basic ${Buffer.from(`${created.clientId}:${created.clientSecret}`).toString('base64')}`;
  const issue = async (dpop?: string): Promise<{ access_token: string; token_type: string }> => {
    const response = await server.fetch(
      new Request(TOKEN_URL, {
        method: 'POST',
        headers: {
          authorization: basic,
          'content-type': 'application/x-www-form-urlencoded',
          ...(dpop === undefined ? {} : { dpop }),
        },
        body: 'grant_type=client_credentials&scope=mcp%3Atools',
      }),
    );
    const body = await response.text();
    if (response.status !== 200) throw new Error(`token request failed: ${body}`);
    return JSON.parse(body) as { access_token: string; token_type: string };
  };
  const bearer = await issue();
  const bound = await issue(proof(key, TOKEN_URL));
  if (bearer.token_type !== 'Bearer' || bound.token_type !== 'DPoP') {
    throw new Error(`unexpected token types: ${bearer.token_type}, ${bound.token_type}`);
  }
  return {
    tokenRequest: async (dpop) => void (await issue(dpop)),
    resource: server.protectedResource('demo', { allowMachineSubjects: true }),
    bearerToken: bearer.access_token,
    boundToken: bound.access_token,
  };
}

async function verified(resource: ProtectedResource, authorization: string, dpop?: string): Promise<void> {
  const access = await resource.verify(
    authorization,
    dpop === undefined ? undefined : { method: 'POST', dpop },
  );
  if (!access.ok) throw new Error(`resource refused: ${access.result.headers['www-authenticate']}`);
}

const key = clientKey();
const available = await requirePostgres();
const postgres = available ? await createIsolatedPool() : undefined;
afterAll(async () => {
  await postgres?.drop();
});

const memory = await deployment(key);
const pg = postgres && (await deployment(key, await createPostgresOnceStore(postgres.pool)));

const memoryTokenProofs = proofPool(PROOFS, () => proof(key, TOKEN_URL));
const memoryResourceProofs = proofPool(PROOFS, () => proof(key, RESOURCE, memory.boundToken));
const pgTokenProofs = pg && proofPool(PROOFS_POSTGRES, () => proof(key, TOKEN_URL));
const pgResourceProofs = pg && proofPool(PROOFS_POSTGRES, () => proof(key, RESOURCE, pg.boundToken));

// Long runs: the machine is shared, so short runs are dominated by other processes' noise.
const options = { time: 3000, warmupTime: 500 };

describe('token request (client_credentials, ES256): Bearer against DPoP', () => {
  bench('Bearer', () => memory.tokenRequest(), options);
  bench('DPoP, memory OnceStore', () => memory.tokenRequest(memoryTokenProofs.next()), options);
  if (pg && pgTokenProofs) {
    bench('DPoP, PostgreSQL OnceStore', () => pg.tokenRequest(pgTokenProofs.next()), options);
  }
});

describe('resource request (bearer policy of the MCP endpoint, ES256 token): Bearer against DPoP', () => {
  bench('Bearer', () => verified(memory.resource, `Bearer ${memory.bearerToken}`), options);
  bench(
    'DPoP, memory OnceStore',
    () => verified(memory.resource, `DPoP ${memory.boundToken}`, memoryResourceProofs.next()),
    options,
  );
  if (pg && pgResourceProofs) {
    bench(
      'DPoP, PostgreSQL OnceStore',
      () => verified(pg.resource, `DPoP ${pg.boundToken}`, pgResourceProofs.next()),
      options,
    );
  }
});
