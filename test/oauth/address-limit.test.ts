/**
 * The rate limit of the OAuth endpoints that take no token, per source address: client
 * registrations, and client ID metadata documents fetched at /oauth/authorize (a cached document
 * is not counted). Through each endpoint's function and its whole chain, on DynamoDB Local, with events from
 * two addresses; the documents served by a real HTTP server on 127.0.0.1.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Context } from 'aws-lambda';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { ServiceContext } from '../../lib/http/types.ts';

// A small limit, read at each request: three an hour per address.
process.env.OAUTH_CLIENT_RATE_LIMIT = '3';

const { handler: registerHandler } = await import('../../functions/register-oauth-client.ts');
const { handler: authorizeHandler } = await import('../../functions/oauth-authorize.ts');
const { buildHttpEvent, localContext } = await import('../../lib/local/apigw-event.ts');
/** What Lambda gives a function; the chain adds the service's part (its request id, the caller, …). */
const contextOf = (functionName: string) => localContext(functionName) as Context & ServiceContext;
const { forgetClientMetadataDocuments } = await import('../../lib/oauth/client-metadata-document.ts');
const { db } = await import('../../lib/db/client.ts');
const { countRoundTrips } = await import('../../lib/db/round-trips.ts');

let maxAge = 0;
let fetched = 0;
const documentServer = createServer((request, response) => {
  fetched += 1;
  const clientId = `${documentsBase}${request.url}`;
  response
    .writeHead(200, { 'content-type': 'application/json', 'cache-control': `max-age=${maxAge}` })
    .end(JSON.stringify({ client_id: clientId, client_name: 'Doc agent', redirect_uris: ['http://127.0.0.1:4567/cb'] }));
});
await new Promise<void>((resolve) => documentServer.listen(0, '127.0.0.1', resolve));
const documentsBase = `http://127.0.0.1:${(documentServer.address() as AddressInfo).port}`;
afterAll(() => new Promise<void>((resolve) => documentServer.close(() => resolve())));
beforeEach(() => {
  forgetClientMetadataDocuments();
  maxAge = 0;
});

/** A fresh address per test: each starts with its whole allowance. */
let nextAddress = 1;
const freshAddress = () => `198.51.100.${nextAddress++}`;

const register = (sourceIp: string, body: unknown = { client_name: 'Agent', redirect_uris: ['https://agent.example/cb'] }) =>
  registerHandler(
    buildHttpEvent({
      method: 'POST',
      path: '/oauth/register',
      routeKey: 'POST /oauth/register',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      sourceIp,
    }),
    contextOf('RegisterOAuthClient'),
  );

const authorize = (sourceIp: string, document: string) =>
  authorizeHandler(
    buildHttpEvent({
      method: 'GET',
      path: '/oauth/authorize',
      routeKey: 'ANY /oauth/authorize',
      rawQueryString: new URLSearchParams({
        response_type: 'code',
        client_id: `${documentsBase}/${document}`,
        redirect_uri: 'http://127.0.0.1:4567/cb',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        resource: 'http://127.0.0.1/mcp',
      }).toString(),
      headers: { host: '127.0.0.1' },
      sourceIp,
    }),
    contextOf('OAuthAuthorize'),
  );

describe('POST /oauth/register, per source address', () => {
  it('registers up to the limit, then answers 429 temporarily_unavailable with Retry-After, registering nothing', async () => {
    const address = freshAddress();
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await register(address)).statusCode);

    const counter = countRoundTrips(db());
    const refused = await register(address);
    counter.stop();

    expect(statuses).toEqual([201, 201, 201]);
    expect(counter.log.commands).toEqual(['UpdateItemCommand']);
    expect(refused.statusCode).toBe(429);
    const retryAfter = Number(refused.headers?.['Retry-After']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(refused.headers?.['Cache-Control']).toBe('no-store');
    expect(JSON.parse(String(refused.body))).toEqual({
      error: 'temporarily_unavailable',
      error_description: `too many client registrations from this address (at most 3 an hour): retry in ${retryAfter} s`,
      request_id: expect.any(String),
    });
  });

  it('counts refused registrations too, and holds each address to its own count', async () => {
    const address = freshAddress();
    for (let i = 0; i < 3; i += 1) expect((await register(address, { redirect_uris: [] })).statusCode).toBe(400);

    expect((await register(address)).statusCode).toBe(429);
    expect((await register(freshAddress())).statusCode).toBe(201);
  });
});

describe('client ID metadata documents fetched at /oauth/authorize, per source address', () => {
  it('fetches up to the limit, then shows a 429 page with Retry-After, fetching nothing', async () => {
    const address = freshAddress();
    for (let i = 0; i < 3; i += 1) expect((await authorize(address, `agent-${i}.json`)).statusCode).toBe(200);

    const before = fetched;
    const refused = await authorize(address, 'agent-3.json');

    expect(fetched).toBe(before);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers?.['Retry-After'])).toBeGreaterThan(0);
    expect(refused.headers?.['X-Frame-Options']).toBe('DENY');
    expect(String(refused.body)).toContain('too many client metadata documents fetched from this address (at most 3 an hour)');
    expect((await authorize(freshAddress(), 'agent-3.json')).statusCode).toBe(200);
  });

  it('does not count a document served from the cache', async () => {
    maxAge = 600;
    const address = freshAddress();
    const statuses = [];
    for (let i = 0; i < 5; i += 1) statuses.push((await authorize(address, 'cached.json')).statusCode);

    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    expect(fetched).toBeGreaterThan(0);
  });
});
