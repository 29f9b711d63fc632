/**
 * The OAuth flow end to end on the local server (real handlers on 127.0.0.1, DynamoDB Local): the
 * MCP SDK's own OAuth client provider discovers, registers, is sent to /oauth/authorize, the
 * consent form is driven by fetch (as a browser would post it), then the SDK exchanges the code,
 * calls a tool with the grant, refreshes, and the grant is revoked. Then each refusal, what no key
 * but the OAuth sealing key opens (issue 45), and that key's rotation.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { auth, discoverOAuthServerInfo, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, describe, expect, it } from 'vitest';
import { listClientGrants, revokeClientGrants } from '../../lib/admin/api-keys.ts';
import { db, tableName } from '../../lib/db/client.ts';
import { apiKeyKey, oauthRefreshTokenKey } from '../../lib/db/keys.ts';
import { getOrganization } from '../../lib/db/organizations.ts';
import { countRoundTrips } from '../../lib/db/round-trips.ts';
import { createLocalServer, loadHandlers } from '../../lib/local/server.ts';
import { type AuthorizationRequest, requestFingerprint } from '../../lib/oauth/authorization-request.ts';
import { seal } from '../../lib/oauth/sealing-key.ts';
import { REFRESH_REFUSED } from '../../lib/oauth/token.ts';
import { sealCursor } from '../../lib/signed-cursor.ts';
import { TEST_OPERATOR, workspace } from '../support/fixtures.ts';
import { mcpClient } from '../support/mcp-client.ts';
import { tokenFor } from '../support/tokens.ts';

const listen = async (server: Server): Promise<string> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};
const api = createLocalServer(await loadHandlers());
const base = await listen(api);
/** Serves client ID metadata documents: path → document. */
const documents = new Map<string, string>();
const documentServer = createServer((request, response) => {
  const body = documents.get(request.url ?? '');
  if (body === undefined) response.writeHead(404).end();
  else response.writeHead(200, { 'content-type': 'application/json' }).end(body);
});
const documentsBase = await listen(documentServer);
afterAll(async () => {
  await Promise.all([api, documentServer].map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
});

const REDIRECT = 'http://127.0.0.1:4567/callback';

/** The SDK's provider as an agent implements it, the browser step left to the test. */
class AgentProvider implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  readonly redirectUrl = REDIRECT;
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: 'SDK agent',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
  state = () => 'state-123';
  clientInformation = () => this.information;
  saveClientInformation = (information: OAuthClientInformationMixed) => {
    this.information = information;
  };
  tokens = () => this.saved;
  saveTokens = (tokens: OAuthTokens) => {
    this.saved = tokens;
  };
  redirectToAuthorization = (url: URL) => {
    this.authorizationUrl = url;
  };
  saveCodeVerifier = (verifier: string) => {
    this.verifier = verifier;
  };
  codeVerifier = () => this.verifier;
}

const ticketOf = (html: string): string => /name="ticket" value="([^"]+)"/.exec(html)?.[1] ?? '';

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
  redirect: 'manual' as const,
});

/** What a person does in the browser: open the page, sign in with their token, choose, allow. Returns the final answer. */
async function consent(authorizationUrl: URL, person: string, choices: Record<string, string>) {
  const params = Object.fromEntries(authorizationUrl.searchParams);
  const opened = await fetch(authorizationUrl);
  expect(opened.status).toBe(200);
  const consentPage = await fetch(`${base}/oauth/authorize`, form({ ...params, token: tokenFor(person) }));
  expect(consentPage.status).toBe(200);
  const ticket = ticketOf(await consentPage.text());
  return fetch(`${base}/oauth/authorize`, form({ ...params, ticket, decision: 'approve', ...choices }));
}

const mcpUrl = (orgId: string) => new URL(`${base}/mcp?organization_id=${orgId}`);

const connect = async (orgId: string, provider: OAuthClientProvider) => {
  const client = mcpClient('oauth-agent');
  await client.connect(new StreamableHTTPClientTransport(mcpUrl(orgId), { authProvider: provider }));
  return client;
};

/** The organization's keys, as its owner lists them. */
const keysOf = async (orgId: string, owner: string) => {
  const answer = await fetch(`${base}/organizations/${orgId}/api-keys`, { headers: { Authorization: `Bearer ${tokenFor(owner)}` } });
  return ((await answer.json()) as { api_keys: Record<string, unknown>[] }).api_keys;
};

const token = (fields: Record<string, string>) => fetch(`${base}/oauth/token`, form(fields));

/** The SDK's client, connected through the whole flow to a fresh workspace as a viewer. */
async function connectedAgent() {
  const { orgId, users } = await workspace({ credits: 10 });
  const provider = new AgentProvider();
  await expect(connect(orgId, provider)).rejects.toThrow(/Unauthorized/);
  const approved = await consent(provider.authorizationUrl!, users.owner, { organization_id: orgId, role: 'viewer', expires_in_days: '1' });
  await new StreamableHTTPClientTransport(mcpUrl(orgId), { authProvider: provider }).finishAuth(
    new URL(approved.headers.get('location')!).searchParams.get('code')!,
  );
  return { orgId, users, provider, client: await connect(orgId, provider) };
}

describe('the MCP SDK OAuth client, end to end', () => {
  it('discovers, registers, is authorized, calls a tool under the grant, refreshes; a reused refresh token revokes the grant', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    const provider = new AgentProvider();

    // 1. No token: the SDK discovers this service, registers, and sends the person to /oauth/authorize.
    await expect(connect(orgId, provider)).rejects.toThrow(/Unauthorized/);
    const authorizationUrl = provider.authorizationUrl!;
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${base}/oauth/authorize`);
    expect(authorizationUrl.searchParams.get('resource')).toBe(`${base}/mcp`);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(provider.information?.client_id).toMatch(/^wsc_/);

    // 2. The person consents: back to the client with a code and the state.
    const approved = await consent(authorizationUrl, users.owner, {
      organization_id: orgId,
      role: 'editor',
      spending_limit: '5',
      daily_limit: '2',
      expires_in_days: '7',
    });
    expect(approved.status).toBe(302);
    const back = new URL(approved.headers.get('location')!);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe('state-123');

    // 3. The SDK exchanges the code; the agent calls a tool, charged to the workspace under the grant.
    const transport = new StreamableHTTPClientTransport(mcpUrl(orgId), { authProvider: provider });
    await transport.finishAuth(back.searchParams.get('code')!);
    const first = provider.saved!;
    expect(first).toMatchObject({ token_type: 'Bearer', expires_in: 3600, refresh_token: expect.stringMatching(/^wsr_/) });
    const client = await connect(orgId, provider);
    const result = await client.callTool({ name: 'x_profile', arguments: { handle: 'nasa' } });
    expect(result.isError).toBeUndefined();
    expect((await getOrganization(orgId))!.credits).toBe(9);
    await client.close();

    // The grant is an API key of the workspace, with its client and the chosen limits.
    expect(await keysOf(orgId, users.owner)).toEqual([
      expect.objectContaining({
        name: 'OAuth: SDK agent',
        role: 'editor',
        spending_limit: 5,
        daily_limit: 2,
        spent: 1,
        created_by_id: users.owner,
        created_via: 'oauth',
        client_id: provider.information!.client_id,
        client_name: 'SDK agent',
        redirect_uri: REDIRECT,
        revoked_at: null,
      }),
    ]);

    // 4. Refresh: the SDK rotates the refresh token.
    expect(await auth(provider, { serverUrl: mcpUrl(orgId) })).toBe('AUTHORIZED');
    const second = provider.saved!;
    expect(second.refresh_token).not.toBe(first.refresh_token);
    const refreshed = await connect(orgId, provider);
    expect((await refreshed.callTool({ name: 'get_budget', arguments: {} })).isError).toBeUndefined();
    await refreshed.close();

    // 5. The first refresh token again: refused, and the whole grant revoked at the next call.
    const reused = await token({
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token!,
      client_id: provider.information!.client_id,
    });
    expect(reused.status).toBe(400);
    expect(await reused.json()).toEqual({ error: 'invalid_grant', error_description: REFRESH_REFUSED, request_id: expect.any(String) });
    const afterwards = await fetch(mcpUrl(orgId), {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${second.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(afterwards.status).toBe(401);
    const current = await token({
      grant_type: 'refresh_token',
      refresh_token: second.refresh_token!,
      client_id: provider.information!.client_id,
    });
    expect(await current.json()).toMatchObject({ error: 'invalid_grant', error_description: REFRESH_REFUSED });
  });

  it('ends the connection at the next call when the owner revokes the key', async () => {
    const { orgId, users, client } = await connectedAgent();
    const owner = { Authorization: `Bearer ${tokenFor(users.owner)}` };
    const { api_keys: keys } = (await (await fetch(`${base}/organizations/${orgId}/api-keys`, { headers: owner })).json()) as {
      api_keys: { id: string }[];
    };

    const revoked = await fetch(`${base}/organizations/${orgId}/api-keys/${keys[0]!.id}`, { method: 'DELETE', headers: owner });

    expect(revoked.status).toBe(204);
    await expect(client.listTools()).rejects.toThrow();
  });
});

describe('the MCP SDK OAuth client, disconnecting', () => {
  it('revokes its grant at the revocation_endpoint it discovers: the connection ends at the next call', async () => {
    const { orgId, users, provider, client } = await connectedAgent();
    // RFC 8414 metadata (the SDK's type also covers OpenID's, which has no revocation endpoint).
    const metadata = (await discoverOAuthServerInfo(mcpUrl(orgId))).authorizationServerMetadata as OAuthMetadata;

    const revoked = await fetch(
      metadata.revocation_endpoint!,
      form({ token: provider.saved!.refresh_token!, token_type_hint: 'refresh_token', client_id: provider.information!.client_id }),
    );

    expect(revoked.status).toBe(200);
    await expect(client.listTools()).rejects.toThrow();
    expect(await keysOf(orgId, users.owner)).toEqual([expect.objectContaining({ created_via: 'oauth', revoked_at: expect.any(String) })]);
  });
});

describe("the token endpoint's round trips", () => {
  it("a code: its single use, then the grant's first refresh token beside its item (2); a refresh: the rotation, then the new token's item (2)", async () => {
    const { orgId, users } = await workspace();
    const client = await registered();
    // The instance publishes its signing key with its first token: not counted here.
    await exchangeCode(client.clientId, await codeFor(client.params, users.owner, orgId), client.verifier);
    const code = await codeFor(client.params, users.owner, orgId);

    const counter = countRoundTrips(db());
    try {
      const exchanged = (await (await exchangeCode(client.clientId, code, client.verifier)).json()) as { refresh_token: string };
      const forCode = { commands: counter.log.commands, sequential: counter.log.sequential };
      counter.reset();
      const refreshed = await token({ grant_type: 'refresh_token', refresh_token: exchanged.refresh_token, client_id: client.clientId });
      const forRefresh = { commands: counter.log.commands, sequential: counter.log.sequential };

      expect(refreshed.status).toBe(200);
      expect(forCode).toEqual({ commands: ['UpdateItemCommand', 'UpdateItemCommand', 'PutItemCommand'], sequential: 2 });
      expect(forRefresh).toEqual({ commands: ['UpdateItemCommand', 'PutItemCommand'], sequential: 2 });
    } finally {
      counter.stop();
    }
  });
});

describe("the admin CLI: a client's grants", () => {
  it('lists and revokes every grant of one client in an organization, and leaves the others', async () => {
    const { orgId, users } = await workspace();
    const { clientId, verifier, params } = await registered();
    const other = await registered();
    const grant = async (client: Awaited<ReturnType<typeof registered>>) =>
      (await (await exchangeCode(client.clientId, await codeFor(client.params, users.owner, orgId), client.verifier)).json()) as {
        access_token: string;
        refresh_token: string;
      };
    const [first, second, others] = [
      await grant({ clientId, verifier, params }),
      await grant({ clientId, verifier, params }),
      await grant(other),
    ];

    const listed = await listClientGrants(orgId, clientId);
    const revoked = await revokeClientGrants(orgId, clientId, TEST_OPERATOR);

    expect(listed.api_keys.map((key) => key.oauth)).toEqual([
      { client_id: clientId, client_name: 'Refusals', redirect_uri: REDIRECT },
      { client_id: clientId, client_name: 'Refusals', redirect_uri: REDIRECT },
    ]);
    expect(revoked.map((key) => key.id).sort()).toEqual(listed.api_keys.map((key) => key.id).sort());
    for (const { access_token: accessToken } of [first, second]) {
      expect((await fetch(`${base}/organizations/${orgId}`, { headers: { Authorization: `Bearer ${accessToken}` } })).status).toBe(401);
    }
    expect((await fetch(`${base}/organizations/${orgId}`, { headers: { Authorization: `Bearer ${others.access_token}` } })).status).toBe(
      200,
    );
  });
});

// ------------------------------------------------------------------ refusals

const challengeOf = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** A registered client and a valid authorization request for it. */
async function registered(redirect = REDIRECT) {
  const answer = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    body: JSON.stringify({ client_name: 'Refusals', redirect_uris: [redirect] }),
  });
  const { client_id: clientId } = (await answer.json()) as { client_id: string };
  const verifier = randomBytes(32).toString('base64url');
  const params: Record<string, string> = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirect,
    code_challenge: challengeOf(verifier),
    code_challenge_method: 'S256',
    state: 's1',
    resource: `${base}/mcp`,
  };
  return { clientId, verifier, params };
}

const authorizeUrl = (params: Record<string, string>) => `${base}/oauth/authorize?${new URLSearchParams(params)}`;

const errorOf = (answer: Response) => {
  expect(answer.status).toBe(302);
  const location = new URL(answer.headers.get('location')!);
  return { to: location.origin + location.pathname, ...Object.fromEntries(location.searchParams) };
};

/** Consents as `person` and returns the code. */
async function codeFor(params: Record<string, string>, person: string, orgId: string) {
  const answer = await consent(new URL(authorizeUrl(params)), person, { organization_id: orgId, role: 'editor', expires_in_days: '1' });
  return new URL(answer.headers.get('location')!).searchParams.get('code')!;
}

const exchangeCode = (clientId: string, code: string, verifier: string, redirect = REDIRECT) =>
  token({ grant_type: 'authorization_code', code, client_id: clientId, redirect_uri: redirect, code_verifier: verifier });

/** A grant of a fresh registered client in a fresh workspace (an editor key of its owner's), its code exchanged. */
async function newGrant() {
  const { orgId, users } = await workspace();
  const client = await registered();
  const exchanged = await exchangeCode(client.clientId, await codeFor(client.params, users.owner, orgId), client.verifier);
  const tokens = (await exchanged.json()) as { access_token: string; refresh_token: string };
  const [key] = await keysOf(orgId, users.owner);
  return { orgId, users, client, tokens, keyId: String(key?.id) };
}

const refreshWith = (refreshToken: string, clientId: string) =>
  token({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });

/** The one answer to a refused refresh token. */
const refreshRefused = { error: 'invalid_grant', error_description: REFRESH_REFUSED, request_id: expect.any(String) };

/** What an access token gets at the next call of the API. */
const callWith = async (orgId: string, accessToken: string) =>
  (await fetch(`${base}/organizations/${orgId}`, { headers: { Authorization: `Bearer ${accessToken}` } })).status;

/** A refresh token as the service sealed them before issue 45: the grant and its generation, under an HMAC of the cursor key. */
function cursorSealedRefreshToken(orgId: string, keyId: string, generation: number): string {
  const payload = Buffer.from(JSON.stringify([orgId, keyId, generation])).toString('base64url');
  const mac = createHmac('sha256', process.env.CURSOR_SIGNING_KEY ?? '')
    .update(`oauth-refresh|${payload}`)
    .digest('base64url');
  return `wsr_${payload}.${mac}`;
}

/** The OAuth sealing key as `value` while `work` runs, then as it was. */
async function withSealingKey<T>(value: unknown, work: () => Promise<T>): Promise<T> {
  const original = process.env.OAUTH_SEALING_KEY;
  process.env.OAUTH_SEALING_KEY = JSON.stringify(value);
  try {
    return await work();
  } finally {
    process.env.OAUTH_SEALING_KEY = original;
  }
}

const testSealingKey = () => JSON.parse(process.env.OAUTH_SEALING_KEY ?? '{}') as { kid: string; key: string };

describe('refusals at /oauth/authorize', () => {
  it('shows the consent page unframeable, with the client name and its redirect host, with no script', async () => {
    const { params } = await registered();
    const answer = await fetch(authorizeUrl(params));
    const html = await answer.text();

    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-security-policy')).toBe(
      "default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self' http://127.0.0.1:4567; frame-ancestors 'none'",
    );
    expect(answer.headers.get('x-frame-options')).toBe('DENY');
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(html).toContain('<strong>Refusals</strong>');
    expect(html).toContain('<strong>127.0.0.1:4567</strong>');
    expect(html).not.toContain('<script');
    // No hosted UI here (the local stack): the pasted token, and the page says so; no cookie.
    expect(html).toContain('This deployment has no hosted sign-in page: paste the access token');
    expect(html).not.toContain('Sign in with your account');
    expect(answer.headers.get('set-cookie')).toBeNull();
  });

  it('answers a hosted sign-in’s return with an error page where there is no hosted UI', async () => {
    const answer = await fetch(`${base}/oauth/authorize?code=abc&state=xyz`, { redirect: 'manual' });

    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain('this deployment has no hosted sign-in page: start again from the application');
  });

  it.each([
    ['an unknown client', { client_id: 'wsc_nobody' }, 'no client is registered with this client_id'],
    [
      'a redirect URI not byte-equal to a registered one',
      { redirect_uri: `${REDIRECT}/` },
      'redirect_uri is not one this client registered (byte for byte)',
    ],
    [
      'a redirect URI differing in case',
      { redirect_uri: REDIRECT.replace('callback', 'Callback') },
      'redirect_uri is not one this client registered (byte for byte)',
    ],
    ['no redirect URI', { redirect_uri: undefined }, 'redirect_uri is required'],
  ])('answers %s with an error page, never a redirect', async (_case, change, message) => {
    const { params } = await registered();
    const given = Object.fromEntries(Object.entries({ ...params, ...change }).filter(([, value]) => value !== undefined)) as Record<
      string,
      string
    >;
    const answer = await fetch(authorizeUrl(given), { redirect: 'manual' });

    expect(answer.status).toBe(400);
    expect(answer.headers.get('location')).toBeNull();
    expect(await answer.text()).toContain(message);
  });

  it.each([
    ['no PKCE challenge', { code_challenge: undefined }, 'invalid_request', 'code_challenge is required (PKCE)'],
    ['a plain PKCE challenge', { code_challenge_method: 'plain' }, 'invalid_request', 'code_challenge_method must be S256'],
    ['no challenge method', { code_challenge_method: undefined }, 'invalid_request', 'code_challenge_method must be S256'],
    ['another resource', { resource: 'https://elsewhere.example/mcp' }, 'invalid_target', `resource must be ${base}/mcp`],
    ['no resource', { resource: undefined }, 'invalid_target', `resource must be ${base}/mcp`],
    ['the implicit flow', { response_type: 'token' }, 'unsupported_response_type', 'response_type must be code'],
  ])('sends %s back to the redirect URI as an RFC 6749 error with the state', async (_case, change, error, description) => {
    const { params } = await registered();
    const given = Object.fromEntries(Object.entries({ ...params, ...change }).filter(([, value]) => value !== undefined)) as Record<
      string,
      string
    >;

    expect(errorOf(await fetch(authorizeUrl(given), { redirect: 'manual' }))).toEqual({
      to: REDIRECT,
      error,
      error_description: description,
      state: 's1',
    });
  });

  it('refuses a consent posted without its anti-forgery token, or with one of another request: nothing is issued', async () => {
    const { orgId, users } = await workspace();
    const { params } = await registered();
    const choices = { organization_id: orgId, role: 'editor', expires_in_days: '1', decision: 'approve' };
    const other = await registered();
    const otherPage = await fetch(`${base}/oauth/authorize`, form({ ...other.params, token: tokenFor(users.owner) }));

    const without = await fetch(`${base}/oauth/authorize`, form({ ...params, ...choices }));
    const forged = await fetch(`${base}/oauth/authorize`, form({ ...params, ...choices, ticket: ticketOf(await otherPage.text()) }));

    expect(without.status).toBe(403);
    expect(await without.text()).toContain('the consent form is missing its anti-forgery token');
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain('an anti-forgery token this service did not issue for this request');
    expect(await keysOf(orgId, users.owner)).toEqual([]);
  });

  it('refuses a role above the person’s with invalid_scope: nothing is issued', async () => {
    const { orgId, users } = await workspace();
    const { params } = await registered();
    const answer = await consent(new URL(authorizeUrl(params)), users.viewer, {
      organization_id: orgId,
      role: 'editor',
      expires_in_days: '1',
    });

    expect(errorOf(answer)).toEqual({
      to: REDIRECT,
      error: 'invalid_scope',
      error_description: 'the role editor is above yours in that workspace (or you are not a member)',
      state: 's1',
    });
    expect(await keysOf(orgId, users.owner)).toEqual([]);
  });

  it('sends a denial back as access_denied', async () => {
    const { orgId, users } = await workspace();
    const { params } = await registered();
    const answer = await consent(new URL(authorizeUrl(params)), users.owner, { organization_id: orgId, decision: 'deny' });

    expect(errorOf(answer)).toEqual({
      to: REDIRECT,
      error: 'access_denied',
      error_description: 'the person denied the connection',
      state: 's1',
    });
  });

  it.each([
    ['PUT', '/oauth/authorize', 405, 'GET, POST', 'method_not_allowed', '/oauth/authorize answers GET, POST, not PUT'],
    ['DELETE', '/oauth/authorize', 405, 'GET, POST', 'method_not_allowed', '/oauth/authorize answers GET, POST, not DELETE'],
    // A preflight with CORS off: as the `$default` route answered it when one route served the four.
    ['OPTIONS', '/oauth/authorize', 404, null, 'route_not_found', 'no route for OPTIONS /oauth/authorize'],
    ['GET', '/oauth/token', 405, 'POST', 'method_not_allowed', '/oauth/token answers POST, not GET'],
    ['GET', '/oauth/register', 405, 'POST', 'method_not_allowed', '/oauth/register answers POST, not GET'],
    ['POST', '/oauth/elsewhere', 404, null, 'route_not_found', 'no route for POST /oauth/elsewhere'],
  ])('answers %s %s with %i', async (method, path, status, allow, code, message) => {
    const answer = await fetch(`${base}${path}`, { method });

    expect([answer.status, answer.headers.get('allow'), await answer.json()]).toEqual([
      status,
      allow,
      { code, message, request_id: answer.headers.get('x-request-id') },
    ]);
  });

  it('accepts a client ID metadata document as client_id, enforcing its redirect URIs exactly', async () => {
    const { orgId, users } = await workspace();
    const clientId = `${documentsBase}/agent.json`;
    documents.set('/agent.json', JSON.stringify({ client_id: clientId, client_name: 'Doc agent', redirect_uris: [REDIRECT] }));
    const verifier = randomBytes(32).toString('base64url');
    const params = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challengeOf(verifier),
      code_challenge_method: 'S256',
      resource: `${base}/mcp`,
    };

    const wrongRedirect = await fetch(authorizeUrl({ ...params, redirect_uri: 'http://127.0.0.1:4567/other' }), { redirect: 'manual' });
    const code = await codeFor(params, users.owner, orgId);
    const answer = await exchangeCode(clientId, code, verifier);

    expect(wrongRedirect.status).toBe(400);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ token_type: 'Bearer', organization_id: orgId });
  });
});

describe('what only the OAuth sealing key opens (issue 45)', () => {
  /** The form of a consent for `params` (a registered client's request), with `ticket`, approving an editor key in `orgId`. */
  const approval = (params: Record<string, string>, ticket: string, orgId: string) =>
    fetch(
      `${base}/oauth/authorize`,
      form({ ...params, ticket, decision: 'approve', organization_id: orgId, role: 'editor', expires_in_days: '1' }),
    );
  /** The consent page's ticket for `person`, on the request `params`. */
  const ticketFor = async (params: Record<string, string>, person: string) =>
    ticketOf(await (await fetch(`${base}/oauth/authorize`, form({ ...params, token: tokenFor(person) }))).text());
  const requestOf = (params: Record<string, string>) =>
    ({
      client: { client_id: params.client_id },
      redirect_uri: params.redirect_uri,
      code_challenge: params.code_challenge,
      state: params.state,
      resource: params.resource,
    }) as AuthorizationRequest;

  it('refuses a ticket sealed with the cursor key, with another key, as a sign-in state or under a kid it never had: nothing is issued', async () => {
    const { orgId, users } = await workspace();
    const { params } = await registered();
    const purpose = `oauth-consent-ticket:${requestFingerprint(requestOf(params))}`;
    const claims = (nonce: string) => ({ userId: users.owner, untilMs: Date.now() + 600_000, nonce });
    // As the service sealed tickets before: the cursor key, naming the owner, for this very request.
    const cursorSealed = sealCursor(
      `oauth-consent:${requestFingerprint(requestOf(params))}`,
      JSON.stringify({ sub: users.owner, until: Date.now() + 600_000 }),
      process.env.CURSOR_SIGNING_KEY ?? '',
    );
    const otherKey = await withSealingKey({ kid: testSealingKey().kid, key: randomBytes(32).toString('hex') }, () =>
      seal(purpose, claims('a')),
    );
    const asSignInState = await seal('oauth-sign-in-state', claims('b'));
    const unknownKid = await withSealingKey({ kid: 'never', key: testSealingKey().key }, () => seal(purpose, claims('c')));

    for (const ticket of [cursorSealed, otherKey, asSignInState, unknownKid]) {
      const answer = await approval(params, ticket, orgId);
      const html = await answer.text();
      expect([answer.status, html.includes('an anti-forgery token this service did not issue for this request')]).toEqual([403, true]);
    }
    expect(await keysOf(orgId, users.owner)).toEqual([]);
    // The same claims sealed with the key itself do approve: the key is all that made the difference.
    expect((await approval(params, await seal(purpose, claims('d')), orgId)).status).toBe(302);
  });

  it('approves a consent form once: posted again, or twice at once, it mints one key and one code', async () => {
    const { orgId, users } = await workspace();
    const { params } = await registered();
    const ticket = await ticketFor(params, users.owner);
    const raced = await ticketFor(params, users.owner);

    const first = await approval(params, ticket, orgId);
    const again = await approval(params, ticket, orgId);
    const atOnce = await Promise.all([approval(params, raced, orgId), approval(params, raced, orgId)]);

    expect(first.status).toBe(302);
    expect(new URL(first.headers.get('location') ?? '').searchParams.get('code')).toMatch(/^[\w-]{43}$/);
    expect([again.status, again.headers.get('location')]).toEqual([403, null]);
    expect(await again.text()).toContain(
      'this consent form was already submitted, and one form makes one connection: start again from the application',
    );
    expect(atOnce.map((answer) => answer.status).sort()).toEqual([302, 403]);
    expect(await keysOf(orgId, users.owner)).toHaveLength(2);
  });

  it("keeps connections and consent forms in flight through the key's rotation; a form of a dropped kid is refused", async () => {
    const before = testSealingKey();
    const grant = await newGrant();
    const { orgId, users } = grant;
    const { params } = await registered();
    const approvedAfter = await ticketFor(params, users.owner);
    const refusedAfterDrop = await ticketFor(params, users.owner);
    const rotated = { kid: 'rotated', key: randomBytes(32).toString('hex') };

    await withSealingKey({ ...rotated, previous: [before] }, async () => {
      // Refresh tokens depend on no key: the connection carries on.
      const refreshed = await refreshWith(grant.tokens.refresh_token, grant.client.clientId);
      expect(refreshed.status).toBe(200);
      // A form sealed before the rotation still approves, and a new one names the new kid.
      expect((await approval(params, approvedAfter, orgId)).status).toBe(302);
      expect((await ticketFor(params, users.owner)).startsWith('rotated.')).toBe(true);
    });
    // The old kid dropped: what it sealed is refused.
    const dropped = await withSealingKey(rotated, () => approval(params, refusedAfterDrop, orgId));

    expect(dropped.status).toBe(403);
    expect(await dropped.text()).toContain('an anti-forgery token this service did not issue for this request');
    expect(await keysOf(orgId, users.owner)).toHaveLength(2);
  });
});

describe('refresh tokens (issue 45): random, kept as hashes, one answer to every refusal', () => {
  it('keeps only the hash of a refresh token: neither the key nor the token’s item holds the token', async () => {
    const grant = await newGrant();
    const hash = createHash('sha256').update(grant.tokens.refresh_token).digest('base64url');
    const read = async (key: Record<string, string>) =>
      (await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;

    const keyItem = await read(apiKeyKey(grant.orgId, grant.keyId));
    const tokenItem = await read(oauthRefreshTokenKey(hash));

    expect(keyItem).toMatchObject({ refresh_hash: hash });
    expect(tokenItem).toMatchObject({
      entity: 'oauth_refresh_token',
      organization_id: grant.orgId,
      key_id: grant.keyId,
      client_id: grant.client.clientId,
    });
    expect(JSON.stringify([keyItem, tokenItem])).not.toContain(grant.tokens.refresh_token.split('.')[1]);
  });

  it.each([
    ['a token sealed with the cursor key, as refresh tokens were before', 'cursor-sealed', false],
    ['a token naming the grant with a secret it never issued', 'forged', false],
    ['the token, from another client', 'other-client', false],
    ['a rotated token presented again (a reuse: the grant is revoked)', 'reused', true],
    ['a token of a grant its owner revoked', 'revoked', true],
    ['a token of an expired grant', 'expired', false],
  ] as const)('refuses %s with the one invalid_grant', async (_case, kind, revokedAfter) => {
    const grant = await newGrant();
    let current = grant.tokens.refresh_token;
    let presented = current;
    let clientId = grant.client.clientId;
    if (kind === 'cursor-sealed') presented = cursorSealedRefreshToken(grant.orgId, grant.keyId, 1);
    if (kind === 'forged') presented = `${current.split('.')[0]}.${randomBytes(32).toString('base64url')}`;
    if (kind === 'other-client') clientId = (await registered()).clientId;
    if (kind === 'reused') current = ((await (await refreshWith(current, clientId)).json()) as { refresh_token: string }).refresh_token;
    if (kind === 'revoked') {
      const owner = { Authorization: `Bearer ${tokenFor(grant.users.owner)}` };
      await fetch(`${base}/organizations/${grant.orgId}/api-keys/${grant.keyId}`, { method: 'DELETE', headers: owner });
    }
    if (kind === 'expired') {
      await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: apiKeyKey(grant.orgId, grant.keyId),
          UpdateExpression: 'SET key_expires_at = :past',
          ExpressionAttributeValues: { ':past': new Date(Date.now() - 1000).toISOString() },
        }),
      );
    }

    const answer = await refreshWith(presented, clientId);

    expect([answer.status, answer.headers.get('cache-control'), await answer.json()]).toEqual([400, 'no-store', refreshRefused]);
    const [key] = await keysOf(grant.orgId, grant.users.owner);
    expect(key?.revoked_at !== null).toBe(revokedAfter);
    // The grant's own current token: still good, unless the grant ended (a reuse's new token included).
    const next = await refreshWith(current, grant.client.clientId);
    if (kind === 'reused' || kind === 'revoked' || kind === 'expired')
      expect([next.status, await next.json()]).toEqual([400, refreshRefused]);
    else expect(next.status).toBe(200);
  });

  it('answers two refreshes sent at once with one token: one gets tokens, the other the one refusal, and the grant is revoked', async () => {
    const grants = await Promise.all([newGrant(), newGrant(), newGrant()]);

    const answers = await Promise.all(
      grants.map(async (grant) => {
        const raced = await Promise.all([1, 2].map(() => refreshWith(grant.tokens.refresh_token, grant.client.clientId)));
        return Promise.all(raced.map(async (answer) => ({ status: answer.status, body: (await answer.json()) as Record<string, string> })));
      }),
    );

    for (const [i, raced] of answers.entries()) {
      const grant = grants[i]!;
      expect(raced.map((answer) => answer.status).sort()).toEqual([200, 400]);
      const won = raced.find((answer) => answer.status === 200)!.body;
      expect(raced.find((answer) => answer.status === 400)!.body).toEqual(refreshRefused);
      // The loser counted as a reuse: the winner's tokens end with the grant.
      expect([
        (await refreshWith(String(won.refresh_token), grant.client.clientId)).status,
        await callWith(grant.orgId, String(won.access_token)),
      ]).toEqual([400, 401]);
    }
  });
});

describe('refusals at /oauth/token', () => {
  it('refuses a wrong verifier, another client, another redirect URI: invalid_grant, nothing issued', async () => {
    const { orgId, users } = await workspace();
    const { clientId, verifier, params } = await registered();
    const other = await registered();
    const cases = [
      [clientId, randomBytes(32).toString('base64url'), REDIRECT, 'code_verifier does not match the code_challenge (PKCE)'],
      [other.clientId, verifier, REDIRECT, 'the code was issued to another client'],
    ] as const;
    for (const [client, given, redirect, description] of cases) {
      const answer = await exchangeCode(client, await codeFor(params, users.owner, orgId), given, redirect);
      expect(answer.status).toBe(400);
      expect(await answer.json()).toEqual({ error: 'invalid_grant', error_description: description, request_id: expect.any(String) });
    }
  });

  it('refuses a code used twice, and revokes what the first use issued', async () => {
    const { orgId, users } = await workspace();
    const { clientId, verifier, params } = await registered();
    const code = await codeFor(params, users.owner, orgId);
    const first = (await (await exchangeCode(clientId, code, verifier)).json()) as { access_token: string; refresh_token: string };

    const second = await exchangeCode(clientId, code, verifier);

    expect(second.status).toBe(400);
    expect(await second.json()).toEqual({
      error: 'invalid_grant',
      error_description: 'the code was used before: the grant it issued is revoked',
      request_id: expect.any(String),
    });
    const refresh = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: clientId });
    expect(await refresh.json()).toMatchObject({ error: 'invalid_grant', error_description: REFRESH_REFUSED });
    const call = await fetch(`${base}/organizations/${orgId}`, { headers: { Authorization: `Bearer ${first.access_token}` } });
    expect(call.status).toBe(401);
  });

  it('refuses a code past 60 s', async () => {
    const { orgId, users } = await workspace();
    const { clientId, verifier, params } = await registered();
    const code = await codeFor(params, users.owner, orgId);
    const realNow = Date.now;
    Date.now = () => realNow() + 61_000;
    let answer: Response;
    try {
      answer = await exchangeCode(clientId, code, verifier);
    } finally {
      Date.now = realNow;
    }

    expect(await answer.json()).toEqual({
      error: 'invalid_grant',
      error_description: 'the code expired (codes are good for 60 seconds)',
      request_id: expect.any(String),
    });
  });

  it.each([
    [{ grant_type: 'password' }, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token'],
    [{ grant_type: 'refresh_token', refresh_token: 'wsr_x.y', client_id: 'c' }, 'invalid_grant', REFRESH_REFUSED],
    [
      { grant_type: 'authorization_code', code: 'nope', client_id: 'c', redirect_uri: REDIRECT, code_verifier: 'a'.repeat(43) },
      'invalid_grant',
      'the code is not one this service issued',
    ],
    [{ grant_type: 'authorization_code', code: 'nope' }, 'invalid_request', 'client_id is required, once'],
    [{}, 'invalid_request', 'grant_type is required, once'],
  ])('refuses %o', async (fields, error, description) => {
    const answer = await token(fields as Record<string, string>);

    expect(answer.status).toBe(400);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(await answer.json()).toEqual({ error, error_description: description, request_id: expect.any(String) });
  });
});

describe('revocation (RFC 7009)', () => {
  const revoke = (fields: Record<string, string>) => fetch(`${base}/oauth/revoke`, form(fields));
  /** A grant of a fresh registered client in a fresh workspace: its tokens, and how each is doing. */
  async function granted() {
    const { orgId, users } = await workspace();
    const client = await registered();
    const tokens = (await (
      await exchangeCode(client.clientId, await codeFor(client.params, users.owner, orgId), client.verifier)
    ).json()) as {
      access_token: string;
      refresh_token: string;
    };
    const accessAnswers = async () =>
      (await fetch(`${base}/organizations/${orgId}`, { headers: { Authorization: `Bearer ${tokens.access_token}` } })).status;
    const refreshAnswers = async () =>
      (await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.clientId })).status;
    return { orgId, users, client, tokens, accessAnswers, refreshAnswers };
  }

  it('is advertised in the RFC 8414 metadata, for public clients', async () => {
    const metadata = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;

    expect(metadata.revocation_endpoint).toBe(`${base}/oauth/revoke`);
    expect(metadata.revocation_endpoint_auth_methods_supported).toEqual(['none']);
  });

  it('revokes the grant by its refresh token: the access token is refused at the next call, the refresh token too', async () => {
    const grant = await granted();
    expect(await grant.accessAnswers()).toBe(200);

    const counter = countRoundTrips(db());
    let answer: Response;
    try {
      answer = await revoke({ token: grant.tokens.refresh_token, token_type_hint: 'refresh_token', client_id: grant.client.clientId });
      expect(counter.log).toMatchObject({ commands: ['UpdateItemCommand'], sequential: 1 });
    } finally {
      counter.stop();
    }

    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(await answer.json()).toEqual({});
    expect(await grant.accessAnswers()).toBe(401);
    expect(await grant.refreshAnswers()).toBe(400);
    expect(await keysOf(grant.orgId, grant.users.owner)).toEqual([expect.objectContaining({ revoked_at: expect.any(String) })]);
  });

  it('revokes the grant by its access token (the key’s JWT cannot be withdrawn alone), whatever the hint says', async () => {
    const grant = await granted();

    const answer = await revoke({ token: grant.tokens.access_token, token_type_hint: 'refresh_token', client_id: grant.client.clientId });

    expect(answer.status).toBe(200);
    expect(await grant.accessAnswers()).toBe(401);
    expect(await grant.refreshAnswers()).toBe(400);
  });

  it('answers 200 for a token it does not know, and revokes nothing', async () => {
    const grant = await granted();
    const [payload] = grant.tokens.refresh_token.slice('wsr_'.length).split('.') as [string];
    const strangers = [
      'not a token',
      `wsr_${payload}.${'A'.repeat(43)}`, // its seal forged
      `wsr_${payload}`,
      tokenFor(grant.users.owner), // a person's token: not one of this server's grants
      `${grant.tokens.access_token.slice(0, -4)}AAAA`, // its signature broken
    ];

    for (const stranger of strangers) {
      const answer = await revoke({ token: stranger, client_id: grant.client.clientId });
      expect([stranger, answer.status, await answer.json()]).toEqual([stranger, 200, {}]);
    }
    expect(await grant.accessAnswers()).toBe(200);
    expect(await grant.refreshAnswers()).toBe(200);
  });

  it('answers 200 again for a grant revoked before', async () => {
    const grant = await granted();
    await revoke({ token: grant.tokens.refresh_token, client_id: grant.client.clientId });

    const again = await revoke({ token: grant.tokens.refresh_token, client_id: grant.client.clientId });

    expect(again.status).toBe(200);
  });

  it('refuses another client’s token, and an API key made by the API, with unauthorized_client: nothing is revoked', async () => {
    const grant = await granted();
    const other = await registered();
    const created = await fetch(`${base}/organizations/${grant.orgId}/api-keys`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${tokenFor(grant.users.owner)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'script', role: 'viewer' }),
    });
    const apiKey = ((await created.json()) as { token: string }).token;

    for (const [given, clientId] of [
      [grant.tokens.refresh_token, other.clientId],
      [grant.tokens.access_token, other.clientId],
      [apiKey, grant.client.clientId],
    ] as const) {
      const answer = await revoke({ token: given, client_id: clientId });
      expect(answer.status).toBe(400);
      expect(await answer.json()).toEqual({
        error: 'unauthorized_client',
        error_description: 'the token was not issued to this client: nothing is revoked',
        request_id: expect.any(String),
      });
    }
    expect(await grant.accessAnswers()).toBe(200);
    expect((await fetch(`${base}/organizations/${grant.orgId}`, { headers: { Authorization: `Bearer ${apiKey}` } })).status).toBe(200);
  });

  it.each([
    ['client_id=wsc_x', 'token is required, once'],
    ['token=wsr_x.y', 'client_id is required, once'],
    ['token=wsr_x.y&token=wsr_z.y&client_id=wsc_x', 'token is required, once'],
    ['token=wsr_x.y&client_id=wsc_x&token_type_hint=access_token&token_type_hint=refresh_token', 'token_type_hint may be given once'],
  ])('refuses %s with invalid_request', async (body, description) => {
    const answer = await fetch(`${base}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });

    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({ error: 'invalid_request', error_description: description, request_id: expect.any(String) });
  });

  it('takes POST only', async () => {
    const answer = await fetch(`${base}/oauth/revoke`);

    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('POST');
  });
});
