// The floor: the least a token endpoint can do over node:http. It reads the form, checks the content type
// and grant type, checks HTTP Basic against one client in constant time, and signs one access token with the
// same header and claims Keyhold issues. Nothing else: no tenants, no store, no rate limits, no metrics.
// BENCH_ALG = ES256 | HS256, BENCH_SIGNER = jose (WebCrypto through jose) | node (node:crypto KeyObject).
import {
  createHash,
  createHmac,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  createSecretKey as secretKey,
  sign,
  timingSafeEqual,
} from 'node:crypto';
import { createServer } from 'node:http';
import { type CryptoKey, importJWK, SignJWT } from 'jose';
import { announce, readBody } from './common.js';

const alg = process.env['BENCH_ALG'] === 'HS256' ? 'HS256' : 'ES256';
const signer = process.env['BENCH_SIGNER'] === 'node' ? 'node' : 'jose';
const issuer = 'http://127.0.0.1/floor';
const clientId = 'bench-client';
const clientSecret = randomBytes(32).toString('base64url');
const secretDigest = createHash('sha256').update(clientSecret).digest();

let nodeKey: KeyObject;
let joseKey: CryptoKey | Uint8Array;
if (alg === 'ES256') {
  const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  nodeKey = pair.privateKey;
  joseKey = (await importJWK(pair.privateKey.export({ format: 'jwk' }) as never, 'ES256')) as CryptoKey;
} else {
  const bytes = randomBytes(32);
  nodeKey = secretKey(bytes);
  joseKey = bytes;
}
const header = { alg, kid: 'k1', typ: 'at+jwt' };
const encodedHeader = Buffer.from(JSON.stringify(header)).toString('base64url');

async function signToken(claims: Record<string, unknown>): Promise<string> {
  if (signer === 'jose') return new SignJWT(claims).setProtectedHeader(header).sign(joseKey);
  const input = `${encodedHeader}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  const signature =
    alg === 'HS256'
      ? createHmac('sha256', nodeKey).update(input).digest()
      : sign('sha256', Buffer.from(input), { key: nodeKey, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

function authenticated(header: string | undefined): boolean {
  if (header === undefined || !header.startsWith('Basic ')) return false;
  const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0 || decodeURIComponent(decoded.slice(0, colon)) !== clientId) return false;
  const presented = createHash('sha256')
    .update(decodeURIComponent(decoded.slice(colon + 1)))
    .digest();
  return timingSafeEqual(presented, secretDigest);
}

const json = { 'content-type': 'application/json', 'cache-control': 'no-store' };

const server = createServer(async (request, response) => {
  const body = await readBody(request);
  if (request.method !== 'POST' || request.headers['content-type'] !== 'application/x-www-form-urlencoded') {
    response.writeHead(400, json).end('{"error":"invalid_request"}');
    return;
  }
  const params = new URLSearchParams(body);
  if (params.get('grant_type') !== 'client_credentials') {
    response.writeHead(400, json).end('{"error":"unsupported_grant_type"}');
    return;
  }
  if (!authenticated(request.headers.authorization)) {
    response.writeHead(401, json).end('{"error":"invalid_client"}');
    return;
  }
  const now = Math.floor(Date.now() / 1000);
  const token = await signToken({
    iss: issuer,
    sub: `client:${clientId}`,
    aud: `${issuer}/mcp`,
    client_id: clientId,
    jti: randomBytes(16).toString('base64url'),
    iat: now,
    exp: now + 900,
  });
  response
    .writeHead(200, json)
    .end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 900 }));
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  announce({ url: `http://127.0.0.1:${port}`, tokenPath: '/token', clientId, clientSecret });
});
