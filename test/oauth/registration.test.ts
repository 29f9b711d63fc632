/**
 * The authorization server's discovery, dynamic client registration and client ID metadata
 * documents, through the local server (real handlers on 127.0.0.1) on DynamoDB Local; the
 * documents served by real HTTP servers on 127.0.0.1.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createLocalServer, loadHandlers } from '../../lib/local/server.ts';
import { clientMetadataDocument, forgetClientMetadataDocuments, MAX_DOCUMENT_BYTES } from '../../lib/oauth/client-metadata-document.ts';
import { resolveClient } from '../../lib/oauth/clients.ts';
import type { OAuthError } from '../../lib/oauth/errors.ts';

const listen = async (server: Server): Promise<string> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

const api = createLocalServer(await loadHandlers());
const base = await listen(api);

/** Serves whatever the test says at any path, and counts the requests. */
let serve: (response: ServerResponse, url: string) => void = (response) => response.end();
let fetches = 0;
const documents = createServer((request, response) => {
  fetches += 1;
  serve(response, request.url ?? '/');
});
const documentsBase = await listen(documents);

afterAll(async () => {
  documents.closeAllConnections();
  await Promise.all([api, documents].map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
});
beforeEach(() => {
  forgetClientMetadataDocuments();
  fetches = 0;
});

const register = (body: unknown) =>
  fetch(`${base}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

const failure = async (work: Promise<unknown>) => {
  try {
    await work;
  } catch (error) {
    return { error: (error as OAuthError).error, description: (error as OAuthError).description };
  }
  throw new Error('expected a refusal');
};

describe('discovery', () => {
  it('names this service as the authorization server of /mcp, with RFC 8414 metadata', async () => {
    const resource = await (await fetch(`${base}/.well-known/oauth-protected-resource`)).json();
    const answer = await fetch(`${base}/.well-known/oauth-authorization-server`);

    expect(resource).toEqual({
      resource: `${base}/mcp`,
      authorization_servers: [base],
      bearer_methods_supported: ['header'],
      resource_name: 'Workspace Service',
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('ratelimit-limit')).toBeNull();
    expect(await answer.json()).toEqual({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/register`,
      revocation_endpoint: `${base}/oauth/revoke`,
      revocation_endpoint_auth_methods_supported: ['none'],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      client_id_metadata_document_supported: true,
      service_documentation: `${base}/docs`,
    });
  });
});

describe('dynamic client registration (RFC 7591)', () => {
  it('registers a public client: 201 with its client_id, which resolves to what was registered', async () => {
    const answer = await register({
      client_name: ' Agent ',
      redirect_uris: ['https://agent.example/callback', 'http://127.0.0.1:8123/cb'],
    });
    const body = (await answer.json()) as { client_id: string };

    expect(answer.status).toBe(201);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(body).toEqual({
      client_id: expect.stringMatching(/^wsc_[0-9a-f]{32}$/),
      client_id_issued_at: expect.any(Number),
      client_name: 'Agent',
      redirect_uris: ['https://agent.example/callback', 'http://127.0.0.1:8123/cb'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    });
    expect(await resolveClient(body.client_id, { allowLoopback: false })).toEqual({
      client_id: body.client_id,
      client_name: 'Agent',
      redirect_uris: ['https://agent.example/callback', 'http://127.0.0.1:8123/cb'],
    });
  });

  it.each([
    ['no redirect_uris', {}, 'invalid_redirect_uri', 'redirect_uris must be a non-empty array'],
    [
      'an http redirect off loopback',
      { redirect_uris: ['http://agent.example/cb'] },
      'invalid_redirect_uri',
      'redirect_uris[0] must be https, or http on a loopback address (127.0.0.1, [::1], localhost)',
    ],
    [
      'a custom scheme',
      { redirect_uris: ['myapp://cb'] },
      'invalid_redirect_uri',
      'redirect_uris[0] must be https, or http on a loopback address (127.0.0.1, [::1], localhost)',
    ],
    ['a fragment', { redirect_uris: ['https://agent.example/cb#x'] }, 'invalid_redirect_uri', 'redirect_uris[0] must not have a fragment'],
    ['a relative URI', { redirect_uris: ['/cb'] }, 'invalid_redirect_uri', 'redirect_uris[0] must be an absolute URL'],
    [
      'eleven URIs',
      { redirect_uris: Array.from({ length: 11 }, (_, i) => `https://a.example/${i}`) },
      'invalid_redirect_uri',
      'redirect_uris may hold at most 10 URIs',
    ],
    [
      'a confidential client',
      { redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'client_secret_basic' },
      'invalid_client_metadata',
      'token_endpoint_auth_method must be none: only public clients (PKCE) are registered',
    ],
    [
      'the implicit grant',
      { redirect_uris: ['https://a.example/cb'], grant_types: ['implicit'] },
      'invalid_client_metadata',
      'grant_types may name only authorization_code and refresh_token',
    ],
    [
      'a token response type',
      { redirect_uris: ['https://a.example/cb'], response_types: ['token'] },
      'invalid_client_metadata',
      'response_types may name only code',
    ],
    [
      'a long name',
      { redirect_uris: ['https://a.example/cb'], client_name: 'x'.repeat(101) },
      'invalid_client_metadata',
      'client_name must be a non-empty string of at most 100 characters',
    ],
    ['an array body', [], 'invalid_client_metadata', 'the body must be a JSON object'],
  ])('refuses %s with the RFC 7591 error', async (_case, body, error, description) => {
    const answer = await register(body);

    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({ error, error_description: description, request_id: expect.any(String) });
  });

  it('refuses a body that is not JSON', async () => {
    const answer = await fetch(`${base}/oauth/register`, { method: 'POST', body: '{' });

    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({
      error: 'invalid_client_metadata',
      error_description: 'the body must be JSON',
      request_id: expect.any(String),
    });
  });

  it('knows no client by an unregistered id', async () => {
    expect(await failure(resolveClient('wsc_unknown', { allowLoopback: false }))).toEqual({
      error: 'invalid_client',
      description: 'no client is registered with this client_id',
    });
  });
});

describe('client ID metadata documents', () => {
  const documentOf = (clientId: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ client_id: clientId, client_name: 'Doc Agent', redirect_uris: ['http://127.0.0.1:9999/callback'], ...extra });

  it('fetches the document once while its Cache-Control allows', async () => {
    const clientId = `${documentsBase}/client.json`;
    serve = (response) => response.writeHead(200, { 'cache-control': 'max-age=300' }).end(documentOf(clientId));

    const first = await resolveClient(clientId, { allowLoopback: true });
    const second = await resolveClient(clientId, { allowLoopback: true });

    expect(first).toEqual({ client_id: clientId, client_name: 'Doc Agent', redirect_uris: ['http://127.0.0.1:9999/callback'] });
    expect(second).toEqual(first);
    expect(fetches).toBe(1);
  });

  it('fetches it again when its Cache-Control says no-store', async () => {
    const clientId = `${documentsBase}/fresh.json`;
    serve = (response) => response.writeHead(200, { 'cache-control': 'no-store' }).end(documentOf(clientId));

    await resolveClient(clientId, { allowLoopback: true });
    await resolveClient(clientId, { allowLoopback: true });

    expect(fetches).toBe(2);
  });

  it.each([
    ['http off loopback', 'http://agent.example/client.json', false, 'the client metadata document URL must be an https URL'],
    [
      'http on loopback where the deployment does not allow it',
      'http://127.0.0.1:1/client.json',
      false,
      'the client metadata document URL must be an https URL',
    ],
    [
      'a private address',
      'https://10.0.0.7/client.json',
      false,
      'the client metadata document URL its host is a private, link-local or otherwise non-public address',
    ],
    [
      'the metadata service',
      'https://169.254.169.254/latest/meta-data',
      false,
      'the client metadata document URL its host is a private, link-local or otherwise non-public address',
    ],
    [
      'an IPv4-mapped private address',
      'https://[::ffff:192.168.1.1]/client.json',
      false,
      'the client metadata document URL its host is a private, link-local or otherwise non-public address',
    ],
    ['a URL without a path', 'https://agent.example', false, 'the client metadata document URL must have a path'],
  ])('refuses %s before fetching', async (_case, clientId, allowLoopback, description) => {
    expect(await failure(clientMetadataDocument(clientId, { allowLoopback }))).toEqual({ error: 'invalid_client', description });
    expect(fetches).toBe(0);
  });

  it('refuses a redirect without following it', async () => {
    const clientId = `${documentsBase}/moved.json`;
    serve = (response) => response.writeHead(302, { location: `${documentsBase}/client.json` }).end();

    expect(await failure(clientMetadataDocument(clientId, { allowLoopback: true }))).toEqual({
      error: 'invalid_client',
      description: 'the client metadata document answered a redirect (302), which is not followed',
    });
    expect(fetches).toBe(1);
  });

  it('refuses a document larger than 64 KB, declared or streamed', async () => {
    const clientId = `${documentsBase}/big.json`;
    const big = documentOf(clientId, { padding: 'x'.repeat(MAX_DOCUMENT_BYTES) });
    serve = (response) => response.writeHead(200).end(big);
    const declared = await failure(clientMetadataDocument(clientId, { allowLoopback: true }));
    serve = (response) => {
      response.writeHead(200);
      response.write(big.slice(0, 40_000));
      response.end(big.slice(40_000));
    };
    const streamed = await failure(clientMetadataDocument(clientId, { allowLoopback: true }));

    const expected = { error: 'invalid_client', description: 'the client metadata document is larger than 65536 bytes' };
    expect(declared).toEqual(expected);
    expect(streamed).toEqual(expected);
  });

  it('refuses a document that answers slowly, at the deadline', async () => {
    const clientId = `${documentsBase}/slow.json`;
    serve = (response) => {
      response.writeHead(200);
      response.write('{');
    };
    const started = Date.now();

    expect(await failure(clientMetadataDocument(clientId, { allowLoopback: true, timeoutMs: 150 }))).toEqual({
      error: 'invalid_client',
      description: 'the client metadata document did not arrive within 150 ms',
    });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it.each([
    ['another client_id', (id: string) => documentOf(`${id}x`), 'the client metadata document names another client_id than its own URL'],
    ['not JSON', () => 'nope', 'the client metadata document is not JSON'],
    [
      'a confidential client',
      (id: string) => documentOf(id, { token_endpoint_auth_method: 'private_key_jwt' }),
      'the client metadata document asks for a token_endpoint_auth_method other than none (public clients only)',
    ],
    [
      'a bad redirect URI',
      (id: string) => documentOf(id, { redirect_uris: ['http://agent.example/cb'] }),
      'the client metadata document has unusable redirect_uris: redirect_uris[0] must be https, or http on a loopback address (127.0.0.1, [::1], localhost)',
    ],
  ])('refuses a document with %s', async (_case, body, description) => {
    const clientId = `${documentsBase}/bad.json`;
    serve = (response) => response.writeHead(200).end(body(clientId));

    expect(await failure(clientMetadataDocument(clientId, { allowLoopback: true }))).toEqual({ error: 'invalid_client', description });
  });
});
