import { JwtVerifier } from 'aws-jwt-verify/jwt-verifier';
import { describe, expect, it, vi } from 'vitest';
import { TOKEN_REFUSALS } from '../../lib/auth/refusals.ts';
import { createTokenVerifier } from '../../lib/auth/verifier.ts';
import { createApiKey, revokeApiKey } from '../../lib/db/api-keys.ts';
import { loadHandlers } from '../../lib/local/server.ts';
import type { Route } from '../../lib/routes.ts';
import { cellsAtDepth } from '../support/depth.ts';
import { TEST_OPERATOR, workspace } from '../support/fixtures.ts';
import type { Call } from '../support/http.ts';
import { call } from '../support/http.ts';
import { sampleRequest, tokenRoutes } from '../support/routes.ts';
import {
  apiKeyTokenWith,
  badTokens,
  cognitoAccessToken,
  cognitoIdToken,
  publishTestSigningKey,
  signedWith,
  TEST_AUDIENCE,
  TEST_CLIENT_ID,
  TEST_ISSUER,
  tokenFor,
} from '../support/tokens.ts';

const handlers = await loadHandlers();

const { orgId, users } = await workspace({ credits: 100 });
/** A request each route accepts once authenticated (the answer after authentication is not the point). */
function requestFor(route: Route): Call {
  const { token: _none, ...request } = sampleRequest(route, orgId, '');
  return request;
}

// API keys of this workspace: one revoked, one whose record never existed; the test key signs them.
await publishTestSigningKey();
const revokedKey = `key_${'1'.repeat(32)}`;
const neverStored = `key_${'2'.repeat(32)}`;
const created = new Date().toISOString();
await createApiKey(
  {
    id: revokedKey,
    organization_id: orgId,
    name: 'revoked',
    role: 'editor',
    spending_limit: null,
    daily_limit: null,
    allowed_ips: null,
    rate_limit: null,
    created_at: created,
    created_by_id: users.owner,
    expires_at: new Date(Date.now() + 86_400_000).toISOString(),
    revoked_at: null,
    last_used_at: null,
  },
  TEST_OPERATOR,
  new Date(),
);
await revokeApiKey(orgId, revokedKey, new Date(), TEST_OPERATOR);

const authenticated = tokenRoutes().map(([, route]) => route);
const now = () => Math.floor(Date.now() / 1000);
const owner = users.owner;

/** Each header is made once, on first use, and sent to every route (RSA key generation is slow). */
const once = (make: () => string | undefined) => {
  let made: { value: string | undefined } | undefined;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
};

/** [case, Authorization header (undefined: none), the reason it must be refused with]. */
const CASES: [string, () => string | undefined, keyof typeof TOKEN_REFUSALS][] = [
  ['no Authorization header', () => undefined, 'missing'],
  ['an empty Authorization header', () => '', 'missing'],
  ['the Basic scheme', () => `Basic ${Buffer.from('a:b').toString('base64')}`, 'not_bearer'],
  ['Bearer and no token', () => 'Bearer ', 'not_bearer'],
  ['two tokens in one header', () => `Bearer ${tokenFor(owner)} ${tokenFor(owner)}`, 'not_bearer'],
  ['two Authorization headers (joined by API Gateway)', () => `Bearer ${tokenFor(owner)},Bearer garbage`, 'not_bearer'],
  ['a header over 8 KB', () => `Bearer ${'a'.repeat(8200)}`, 'too_large'],
  ['a 100 KB signed token', () => `Bearer ${signedWith(owner, { padding: 'x'.repeat(100_000) })}`, 'too_large'],
  ['a token that is not a JWT', () => 'Bearer not-a-jwt', 'malformed'],
  ['a JWT whose payload is not JSON', () => `Bearer eyJhbGciOiJSUzI1NiJ9.bm90IGpzb24.c2ln`, 'malformed'],
  ['a numeric sub', () => `Bearer ${signedWith(owner, { sub: 42 })}`, 'malformed'],
  ['alg none without a signature', () => `Bearer ${badTokens.unsigned(owner)}`, 'malformed'],
  ['alg none with a signature', () => `Bearer ${signedWith(owner, {}, { alg: 'none' })}`, 'bad_signature'],
  ['an HMAC signature (algorithm confusion)', () => `Bearer ${badTokens.hmac(owner)}`, 'bad_signature'],
  ['a signature by another key under the trusted kid', () => `Bearer ${badTokens.wrongKey(owner)}`, 'bad_signature'],
  ['a tampered payload', () => `Bearer ${badTokens.tampered(owner)}`, 'bad_signature'],
  ['a kid the issuer does not publish', () => `Bearer ${badTokens.unknownKid(owner)}`, 'unknown_key'],
  ['a token without kid', () => `Bearer ${signedWith(owner, {}, { kid: undefined })}`, 'unknown_key'],
  ['a token expired 60 s ago', () => `Bearer ${signedWith(owner, { exp: now() - 60, iat: now() - 600 })}`, 'expired'],
  ['a token valid from in 5 minutes (nbf)', () => `Bearer ${signedWith(owner, { nbf: now() + 300 })}`, 'not_yet_valid'],
  ['a token issued a day in the future (iat)', () => `Bearer ${signedWith(owner, { iat: now() + 86_400 })}`, 'issued_in_future'],
  ['a token without exp', () => `Bearer ${signedWith(owner, { exp: undefined })}`, 'no_expiry'],
  ['another issuer', () => `Bearer ${signedWith(owner, { iss: 'https://evil.test/' })}`, 'wrong_issuer'],
  ['another audience', () => `Bearer ${signedWith(owner, { aud: 'another-service' })}`, 'wrong_audience'],
  ['neither aud nor client_id', () => `Bearer ${signedWith(owner, { aud: undefined })}`, 'wrong_audience'],
  ['a Cognito access token of another client', () => `Bearer ${cognitoAccessToken(owner, 'another-client')}`, 'wrong_audience'],
  ['a Cognito ID token of another client', () => `Bearer ${cognitoIdToken(owner, 'another-client')}`, 'wrong_audience'],
  [
    'a listed client_id whose token_use is id',
    () => `Bearer ${cognitoAccessToken(owner, TEST_CLIENT_ID, { token_use: 'id' })}`,
    'wrong_token_use',
  ],
  ['a crit header naming an extension', () => `Bearer ${signedWith(owner, {}, { crit: ['exp'], exp: 1 })}`, 'unsupported_crit'],
  ['a crit header naming b64', () => `Bearer ${signedWith(owner, {}, { crit: ['b64'], b64: false })}`, 'unsupported_crit'],
  ['an empty sub', () => `Bearer ${signedWith(owner, { sub: '' })}`, 'invalid_subject'],
  ['no sub', () => `Bearer ${signedWith(owner, { sub: undefined })}`, 'invalid_subject'],
  ['a sub of 3,000 characters', () => `Bearer ${signedWith(owner, { sub: 'u'.repeat(3000) })}`, 'invalid_subject'],
  ['a sub of 256 characters', () => `Bearer ${signedWith(owner, { sub: 'é'.repeat(256) })}`, 'invalid_subject'],
  ['a user token whose sub is an API key id', () => `Bearer ${signedWith(revokedKey, {})}`, 'invalid_subject'],
  ['an API key token without token_use', () => `Bearer ${apiKeyTokenWith(revokedKey, orgId, { token_use: undefined })}`, 'invalid_api_key'],
  ['an API key token without org', () => `Bearer ${apiKeyTokenWith(revokedKey, orgId, { org: undefined })}`, 'invalid_api_key'],
  [
    'an API key token whose jti is not its sub',
    () => `Bearer ${apiKeyTokenWith(revokedKey, orgId, { jti: neverStored })}`,
    'invalid_api_key',
  ],
  ['a revoked API key', () => `Bearer ${apiKeyTokenWith(revokedKey, orgId)}`, 'revoked'],
  ['an API key that was never created', () => `Bearer ${apiKeyTokenWith(neverStored, orgId)}`, 'unknown_api_key'],
];

const CORPUS = CASES.map(([name, header, reason]) => [name, reason, once(header)] as const);

describe('the refusal reasons', () => {
  it('each has its own description, a valid RFC 6750 error_description', () => {
    const descriptions = Object.values(TOKEN_REFUSALS);
    expect(new Set(descriptions).size).toBe(descriptions.length);
    for (const description of descriptions) expect(description).toMatch(/^[\x20\x21\x23-\x5b\x5d-\x7e]+$/);
  });

  it('the corpus covers every reason', () => {
    expect(new Set(CORPUS.map(([, reason]) => reason))).toEqual(new Set(Object.keys(TOKEN_REFUSALS)));
  });
});

describe.each(authenticated.map((route, r) => [route.name, route, r] as const))('%s', (_name, route, r) => {
  const request = requestFor(route);

  it.each(cellsAtDepth(CORPUS, (_case, c) => (r + c) % 4 === 0))('refuses %s: 401 %s', async (_case, reason, header) => {
    const authorization = header();
    const answer = await call(handlers.get(route.name)!, {
      ...request,
      ...(authorization === undefined ? {} : { headers: { authorization } }),
    });

    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({
      code: 'unauthenticated',
      message: TOKEN_REFUSALS[reason],
      data: { reason },
      request_id: answer.headers['x-request-id'],
    });
    const challenge = reason === 'missing' ? '' : `error="invalid_token", error_description="${TOKEN_REFUSALS[reason]}"`;
    if (route.path === '/mcp') {
      // MCP clients discover the authorization server from the resource metadata it names.
      expect(answer.headers['www-authenticate']).toMatch(/^Bearer resource_metadata="http[^"]+\/\.well-known\/oauth-protected-resource"/);
      expect(answer.headers['www-authenticate']).toContain(challenge);
    } else {
      expect(answer.headers['www-authenticate']).toBe(challenge ? `Bearer ${challenge}` : 'Bearer');
    }
    expect(answer.raw).not.toContain('aws-jwt-verify');
  });

  it.each(
    cellsAtDepth<readonly [string, () => string]>(
      [
        ['an ID-style token with the configured aud', () => tokenFor(owner)],
        ['a Cognito ID token of the configured audience', () => cognitoIdToken(owner, TEST_AUDIENCE)],
        ['a Cognito access token of a configured client', () => cognitoAccessToken(owner, TEST_CLIENT_ID)],
        ['a token issued 20 s in the future (within the clock skew)', () => signedWith(owner, { iat: now() + 20 })],
        ['a token expired 10 s ago (within the clock skew)', () => signedWith(owner, { exp: now() - 10, iat: now() - 600 })],
        ['a sub of 255 characters', () => signedWith('é'.repeat(255), {})],
      ],
      (_case, c) => (r + c) % 3 === 0,
    ),
  )('accepts %s', async (_case, token) => {
    const answer = await call(handlers.get(route.name)!, { ...request, token: token() });

    expect(answer.status).not.toBe(401);
    expect(answer.headers['www-authenticate']).toBeUndefined();
  });
});

describe('Cognito tokens, accepted or refused per configuration', () => {
  const ID_CLIENT = 'id-client';
  const ID_CLIENT_2 = 'id-client-2';
  const ACCESS_CLIENT = 'access-client';
  const ACCESS_CLIENT_2 = 'access-client-2';
  const settings = (audiences: string[], clientIds: string[]) => ({
    issuer: TEST_ISSUER,
    jwksUri: process.env.JWT_JWKS_URI!,
    audiences,
    clientIds,
  });
  const outcome = (verifier: ReturnType<typeof createTokenVerifier>, token: string) =>
    verifier.verify(token).then(
      ({ sub }) => `accepted ${sub}`,
      (error: { reason?: string }) => `refused ${error.reason}`,
    );
  const tokens = {
    idToken: () => cognitoIdToken('alice', ID_CLIENT),
    idTokenOfSecondClient: () => cognitoIdToken('alice', ID_CLIENT_2),
    idTokenOfAccessClient: () => cognitoIdToken('alice', ACCESS_CLIENT),
    accessToken: () => cognitoAccessToken('alice', ACCESS_CLIENT),
    accessTokenOfSecondClient: () => cognitoAccessToken('alice', ACCESS_CLIENT_2),
    accessTokenOfIdClient: () => cognitoAccessToken('alice', ID_CLIENT),
  };

  it.each([
    [
      'JWT_AUDIENCE only (ID tokens)',
      settings([ID_CLIENT], []),
      {
        idToken: 'accepted alice',
        idTokenOfSecondClient: 'refused wrong_audience',
        idTokenOfAccessClient: 'refused wrong_audience',
        accessToken: 'refused wrong_audience',
        accessTokenOfSecondClient: 'refused wrong_audience',
        accessTokenOfIdClient: 'refused wrong_audience',
      },
    ],
    [
      'JWT_CLIENT_IDS only (access tokens)',
      settings([], [ACCESS_CLIENT]),
      {
        idToken: 'refused wrong_audience',
        idTokenOfSecondClient: 'refused wrong_audience',
        idTokenOfAccessClient: 'refused wrong_token_use',
        accessToken: 'accepted alice',
        accessTokenOfSecondClient: 'refused wrong_audience',
        accessTokenOfIdClient: 'refused wrong_audience',
      },
    ],
    [
      'both, with two entries each',
      settings([ID_CLIENT, ID_CLIENT_2], [ACCESS_CLIENT, ACCESS_CLIENT_2]),
      {
        idToken: 'accepted alice',
        idTokenOfSecondClient: 'accepted alice',
        idTokenOfAccessClient: 'refused wrong_token_use',
        accessToken: 'accepted alice',
        accessTokenOfSecondClient: 'accepted alice',
        accessTokenOfIdClient: 'refused wrong_audience',
      },
    ],
  ])('%s', async (_case, config, expected) => {
    const verifier = createTokenVerifier(config);
    const outcomes = Object.fromEntries(
      await Promise.all(Object.entries(tokens).map(async ([name, make]) => [name, await outcome(verifier, make())] as const)),
    );
    expect(outcomes).toEqual(expected);
  });

  it('takes a token it verified at its word until its exp, and never after it', async () => {
    // Prepare
    const verifier = createTokenVerifier(settings([TEST_AUDIENCE], []));
    const token = tokenFor('alice', { ttlSeconds: 60 });
    const signatures = vi.spyOn(JwtVerifier.prototype, 'verify');

    // Act
    const first = await outcome(verifier, token);
    const checked = signatures.mock.calls.length;
    const again = await outcome(verifier, token);
    vi.useFakeTimers({ now: Date.now() + 120_000, toFake: ['Date'] });
    const afterExp = await outcome(verifier, token).finally(() => vi.useRealTimers());

    // Assess
    expect([first, again, afterExp]).toEqual(['accepted alice', 'accepted alice', 'refused expired']);
    expect(checked).toBe(1);
    expect(signatures.mock.calls.length).toBe(2); // the second time none, after its exp once more
    signatures.mockRestore();
  });

  it('answers a JWKS that cannot be fetched as the service’s failure, not the token’s', async () => {
    const verifier = createTokenVerifier({ ...settings([TEST_AUDIENCE], []), jwksUri: 'http://127.0.0.1:9/.well-known/jwks.json' });
    const error = await verifier.verify(tokenFor(owner)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as { reason?: string }).reason).toBeUndefined();
  });
});
