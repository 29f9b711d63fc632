import { describe, expect, it } from 'vitest';
import { handler } from '../functions/list-billing-events.ts';
import { workspace } from './support/fixtures.ts';
import { call, withoutRequestId } from './support/http.ts';
import { TEST_AUDIENCE, TEST_CLIENT_ID, TEST_ISSUER, tokenFor } from './support/tokens.ts';

const { orgId, users } = await workspace();
const url = `/organizations/${orgId}/billing/events`;

describe('bearer authentication', () => {
  it('serves a valid token', async () => {
    const answer = await call(handler, { url, token: tokenFor(users.owner) });
    expect(answer.status).toBe(200);
  });

  it('answers 401 without WWW-Authenticate error when no token is sent', async () => {
    const answer = await call(handler, { url });
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toBe('Bearer');
    expect(withoutRequestId(answer.body)).toEqual({
      code: 'unauthenticated',
      message: 'a bearer token is required',
      data: { reason: 'missing' },
    });
    expect(answer.headers['x-request-id']).toBe(answer.body.request_id);
    expect(answer.headers['endless-api-version']).toBe('1');
  });

  // Every way a token can be refused, on every route: test/auth/token-corpus.test.ts.
  it('says why a sent token is refused, in WWW-Authenticate and in the message', async () => {
    const answer = await call(handler, { url, token: tokenFor(users.owner, { ttlSeconds: -120 }) });
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toBe('Bearer error="invalid_token", error_description="the bearer token has expired"');
    expect(withoutRequestId(answer.body)).toEqual({
      code: 'unauthenticated',
      message: 'the bearer token has expired',
      data: { reason: 'expired' },
    });
  });

  it('accepts the scheme name in any case', async () => {
    const answer = await call(handler, { url, headers: { authorization: `bearer ${tokenFor(users.owner)}` } });
    expect(answer.status).toBe(200);
  });

  it('checks authentication before anything else', async () => {
    const answer = await call(handler, { url: `/organizations/nope/billing/events?days=0`, headers: { 'endless-api-version': '9' } });
    expect(answer.status).toBe(401);
  });

  it('uses the configured issuer, audience and client id', () => {
    expect(process.env.JWT_ISSUER).toBe(TEST_ISSUER);
    expect(process.env.JWT_AUDIENCE).toBe(TEST_AUDIENCE);
    expect(process.env.JWT_CLIENT_IDS).toBe(TEST_CLIENT_ID);
  });
});

describe('Endless-Api-Version', () => {
  it.each([
    ['absent', {}],
    ['1', { 'endless-api-version': '1' }],
    ['1.2', { 'endless-api-version': '1.2' }],
    [' 1 ', { 'endless-api-version': ' 1 ' }],
    ['the alias Service-Api-Version: 1', { 'service-api-version': '1' }],
    ['both headers agreeing (1 and 1.0)', { 'endless-api-version': '1', 'service-api-version': '1.0' }],
  ])('serves %s', async (_case, headers) => {
    const answer = await call(handler, { url, token: tokenFor(users.owner), headers });
    expect(answer.status).toBe(200);
    expect(answer.headers['endless-api-version']).toBe('1');
  });

  it.each([
    ['2', { 'endless-api-version': '2' }, 'Endless-Api-Version: major version 2 cannot be served; this deployment serves major version 1'],
    ['0', { 'endless-api-version': '0' }, 'Endless-Api-Version: major version 0 cannot be served; this deployment serves major version 1'],
    [
      '2.1',
      { 'endless-api-version': '2.1' },
      'Endless-Api-Version: major version 2 cannot be served; this deployment serves major version 1',
    ],
    [
      'alias 2',
      { 'service-api-version': '2' },
      'Service-Api-Version: major version 2 cannot be served; this deployment serves major version 1',
    ],
    [
      '1.0.0',
      { 'endless-api-version': '1.0.0' },
      'Endless-Api-Version: "1.0.0" is not a version; send the major version (1) or major.minor (1.0), digits only',
    ],
    [
      'v1',
      { 'endless-api-version': 'v1' },
      'Endless-Api-Version: "v1" is not a version; send the major version (1) or major.minor (1.0), digits only',
    ],
    [
      'abc',
      { 'endless-api-version': 'abc' },
      'Endless-Api-Version: "abc" is not a version; send the major version (1) or major.minor (1.0), digits only',
    ],
    [
      'empty',
      { 'endless-api-version': '' },
      'Endless-Api-Version: "" is not a version; send the major version (1) or major.minor (1.0), digits only',
    ],
    [
      'a long value (cut in the message)',
      { 'endless-api-version': 'x'.repeat(100) },
      `Endless-Api-Version: "${'x'.repeat(32)}…" is not a version; send the major version (1) or major.minor (1.0), digits only`,
    ],
    [
      'a repeated header (1,2)',
      { 'endless-api-version': '1,2' },
      'Endless-Api-Version was sent more than once ("1,2"); send it once, e.g. Endless-Api-Version: 1',
    ],
    [
      'the two headers disagreeing',
      { 'endless-api-version': '1.1', 'service-api-version': '1.2' },
      'Endless-Api-Version and Service-Api-Version disagree ("1.1" vs "1.2")',
    ],
  ])('answers 400 unsupported_api_version for %s', async (_case, headers, message) => {
    const answer = await call(handler, { url, token: tokenFor(users.owner), headers });
    expect(answer.status).toBe(400);
    expect(answer.headers['endless-api-version']).toBe('1');
    expect(withoutRequestId(answer.body)).toEqual({ code: 'unsupported_api_version', message });
  });

  it('checks the version before validation', async () => {
    const answer = await call(handler, { url: `${url}?days=0`, token: tokenFor(users.owner), headers: { 'endless-api-version': '2' } });
    expect(answer.body.code).toBe('unsupported_api_version');
  });
});
