/**
 * POST /mcp driven by the MCP SDK's own client and Streamable HTTP transport, against the local
 * server (the real handlers behind a real HTTP listener on 127.0.0.1), on DynamoDB Local.
 */
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { getOrganization } from '../../lib/db/organizations.ts';
import { iconFileNames } from '../../lib/icons.ts';
import { createLocalServer, loadHandlers } from '../../lib/local/server.ts';
import { portableSchema, requiringNothing } from '../../lib/mcp/tools.ts';
import { workspace } from '../support/fixtures.ts';
import { mcpClient } from '../support/mcp-client.ts';
import { eventsOf } from '../support/social.ts';
import { tokenFor } from '../support/tokens.ts';

const server = createLocalServer(await loadHandlers());
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const mcpUrl = (orgId: string) => new URL(`${base}/mcp?organization_id=${orgId}`);

/** An agent connected to one workspace as one user: initialize, then initialized, as any MCP host does. */
async function agent(orgId: string, user: string): Promise<Client> {
  const client = mcpClient();
  const transport = new StreamableHTTPClientTransport(mcpUrl(orgId), {
    requestInit: { headers: { Authorization: `Bearer ${tokenFor(user)}` } },
  });
  await client.connect(transport);
  return client;
}

/** A refusal's text is the error body POST /social/{operation} would answer with. */
const refusal = (result: Record<string, unknown>) => {
  const [first] = result.content as { type: string; text: string }[];
  const { request_id: requestId, ...body } = JSON.parse(first!.text);
  expect(requestId).toEqual(expect.any(String));
  return { isError: result.isError, ...body };
};

const charges = async (orgId: string) => (await eventsOf(orgId)).filter((event) => event.type === 'social_operation.charged');

describe('POST /mcp with the MCP SDK client', () => {
  it('initializes: server info, the tools capability and instructions about credits', async () => {
    const { orgId, users } = await workspace();
    const client = await agent(orgId, users.viewer);

    expect(client.getServerVersion()).toEqual({
      name: 'workspace-service',
      title: 'Workspace Service',
      version: '1.0.0',
      icons: [{ src: `${base}/console/${iconFileNames().get('service')}`, mimeType: 'image/svg+xml', sizes: ['any'] }],
    });
    expect(client.getServerCapabilities()).toEqual({ tools: {} });
    expect(client.getInstructions()).toContain('spends workspace credits');
    expect(await client.ping()).toEqual({});
    await client.close();
  });

  it('lists as tools exactly the operations GET /social/operations lists to that member, then the two job tools, get_budget and get_status', async () => {
    const { orgId, users } = await workspace({ networks: ['x', 'reddit'] });
    const client = await agent(orgId, users.viewer);

    const { tools } = await client.listTools();
    const listed = await fetch(`${base}/social/operations?organization_id=${orgId}`, {
      headers: { Authorization: `Bearer ${tokenFor(users.viewer)}` },
    }).then((response) => response.json() as Promise<{ operations: { name: string; input_schema: unknown; output_schema: unknown }[] }>);

    expect(tools.map((tool) => tool.name)).toEqual([
      ...listed.operations.map((operation) => operation.name),
      'start_job',
      'get_job',
      'get_budget',
      'get_status',
    ]);
    expect(tools).toHaveLength(listed.operations.length + 4);
    const profile = listed.operations.find((operation) => operation.name === 'x_profile')!;
    expect(JSON.stringify(profile.output_schema)).toContain('"type":["string","null"]');
    const input = portableSchema(profile.input_schema) as { properties: object };
    expect(tools.find((tool) => tool.name === 'x_profile')).toEqual({
      name: 'x_profile',
      title: 'X profile',
      // Its network's icon (lib/icons.ts), on the console's asset route of this origin.
      icons: [
        {
          src: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/console\/icon-x\.[0-9a-f]{16}\.svg$/),
          mimeType: 'image/svg+xml',
          sizes: ['any'],
        },
      ],
      description: 'Get an X account by handle: bio, location, followers, following and post counts. Costs 1 credit.',
      // The listing's schemas, each nullable `type: [T, "null"]` as anyOf branches (lib/mcp/tools.ts),
      // the input with `_fields`, the output requiring nothing (a projected or cut result conforms).
      inputSchema: {
        ...input,
        properties: {
          ...input.properties,
          _fields: { type: 'string', maxLength: 2000, description: expect.stringContaining('e.g. "id,username,display_name"') },
        },
      },
      outputSchema: requiringNothing(portableSchema(profile.output_schema)),
      annotations: { readOnlyHint: true, openWorldHint: true },
      _meta: { cost: 1, cached_cost: 0 },
    });
    expect(tools.find((tool) => tool.name === 'resolve_mention')?.title).toBe('Resolve mention');
    await client.close();
  });

  it('runs a tool: structured content valid against its output schema, the same JSON as text, the charge and its event', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const client = await agent(orgId, users.editor);
    // Listing first makes the SDK client check structuredContent against the tool's outputSchema.
    await client.listTools();

    const result = await client.callTool({ name: 'x_profile', arguments: { handle: '@nasa' } });

    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ network: 'x', username: expect.any(String) });
    expect(result.content).toEqual([{ type: 'text', text: JSON.stringify(result.structuredContent) }]);
    expect(result._meta).toEqual({
      credits_charged: 1,
      credits_remaining: 4,
      charge_id: expect.stringMatching(/^evt_/),
      cache_status: 'workspace; fwd=bypass; stored',
      provider: 'sample',
      sample_data: true,
    });
    expect((await getOrganization(orgId))!.credits).toBe(4);
    expect(await charges(orgId)).toEqual([expect.objectContaining({ type: 'social_operation.charged', amount: -1, title: 'x_profile' })]);
    await client.close();
  });

  it('refuses a run with 0 credits: isError insufficient_credits, nothing charged', async () => {
    const { orgId, users } = await workspace({ credits: 0 });
    const client = await agent(orgId, users.editor);

    const result = await client.callTool({ name: 'x_profile', arguments: { handle: 'nasa' } });

    expect(refusal(result)).toEqual({
      isError: true,
      code: 'insufficient_credits',
      message: 'the organization has 0 credits and this operation costs 1 credit; ask an owner of this workspace to have credits added',
      data: {
        balance: 0,
        cost: 1,
        how_to_add_credits: 'ask an owner of this workspace to have credits added',
        billing_url: `${base}/console?organization_id=${orgId}#billing`,
      },
    });
    // Where an owner buys credits, also in `_meta`: a host can show it without parsing the text.
    expect(result._meta).toEqual({ billing_url: `${base}/console?organization_id=${orgId}#billing` });
    expect(await charges(orgId)).toEqual([]);
    await client.close();
  });

  it("refuses a viewer's run: isError forbidden, nothing charged", async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const client = await agent(orgId, users.viewer);

    const result = await client.callTool({ name: 'x_profile', arguments: { handle: 'nasa' } });

    expect(refusal(result)).toEqual({ isError: true, code: 'forbidden', message: 'only editors and owners can run social operations' });
    expect((await getOrganization(orgId))!.credits).toBe(5);
    await client.close();
  });

  it('refuses invalid arguments: isError naming the argument, nothing charged', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const client = await agent(orgId, users.editor);

    const missing = await client.callTool({ name: 'x_profile', arguments: {} });
    const wrong = await client.callTool({ name: 'x_search', arguments: { query: 'nasa', count: 1000 } });

    expect(refusal(missing)).toEqual({
      isError: true,
      code: 'validation_failed',
      message: 'arguments.handle: is required',
      data: { issues: [{ path: ['arguments', 'handle'], code: 'required', message: 'is required' }] },
    });
    expect(refusal(wrong)).toMatchObject({
      isError: true,
      code: 'validation_failed',
      message: expect.stringMatching(/^arguments\.count: /),
    });
    expect(await charges(orgId)).toEqual([]);
    await client.close();
  });

  it("leaves a disabled network's operations out of the list and refuses to run them", async () => {
    const { orgId, users } = await workspace({ credits: 5, networks: ['reddit'] });
    const client = await agent(orgId, users.editor);

    const { tools } = await client.listTools();
    const result = await client.callTool({ name: 'x_profile', arguments: { handle: 'nasa' } });

    expect(tools.map((tool) => tool.name)).not.toContain('x_profile');
    expect(tools.map((tool) => tool.name)).toContain('reddit_search');
    expect(refusal(result)).toEqual({
      isError: true,
      code: 'operation_not_enabled',
      message: 'operation x_profile is not enabled for this organization: its x network is turned off',
    });
    expect(await charges(orgId)).toEqual([]);
    await client.close();
  });

  it('answers an unknown tool with a JSON-RPC error (invalid params), its message prefixed once', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const client = await agent(orgId, users.editor);

    // The SDK's client prefixes the code itself: the server's message must not carry it already.
    await expect(client.callTool({ name: 'myspace_profile', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: 'MCP error -32602: Unknown tool: myspace_profile',
    });
    await client.close();
  });

  it("answers a non-member's listing with a JSON-RPC error carrying the forbidden code", async () => {
    const { orgId } = await workspace();
    const client = await agent(orgId, 'someone-else');

    await expect(client.listTools()).rejects.toMatchObject({
      code: -32600,
      message: 'MCP error -32600: forbidden: you are not a member of this organization',
      data: { code: 'forbidden', message: 'you are not a member of this organization', request_id: expect.any(String) },
    });
    await client.close();
  });

  it('20 concurrent tools/call on a balance of 5: exactly 5 succeed, the balance ends at 0, exactly 5 charged events', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const client = await agent(orgId, users.editor);

    const results = await Promise.all(
      Array.from({ length: 20 }, () => client.callTool({ name: 'x_profile', arguments: { handle: 'nasa' } })),
    );

    const tally: Record<string, number> = {};
    for (const result of results) {
      const key = result.isError ? refusal(result).code : 'ok';
      tally[key] = (tally[key] ?? 0) + 1;
    }
    expect(tally).toEqual({ ok: 5, insufficient_credits: 15 });
    expect((await getOrganization(orgId))!.credits).toBe(0);
    expect(await charges(orgId)).toHaveLength(5);
    await client.close();
  });
});

describe('discovery of authentication (RFC 9728)', () => {
  it('refuses a client without a token, whose 401 names the metadata that names the issuer', async () => {
    const { orgId } = await workspace();
    const { extractWWWAuthenticateParams, discoverOAuthProtectedResourceMetadata } = await import(
      '@modelcontextprotocol/sdk/client/auth.js'
    );

    const client = mcpClient();
    await expect(client.connect(new StreamableHTTPClientTransport(mcpUrl(orgId)))).rejects.toMatchObject({ code: 401 });
    const answer = await fetch(mcpUrl(orgId), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    const { resourceMetadataUrl } = extractWWWAuthenticateParams(answer);
    const metadata = await discoverOAuthProtectedResourceMetadata(mcpUrl(orgId), { resourceMetadataUrl: resourceMetadataUrl! });

    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${base}/.well-known/oauth-protected-resource"`);
    expect(await answer.json()).toEqual({
      code: 'unauthenticated',
      message: 'a bearer token is required',
      data: { reason: 'missing' },
      request_id: expect.any(String),
    });
    expect(metadata).toEqual({
      resource: `${base}/mcp`,
      authorization_servers: [base],
      bearer_methods_supported: ['header'],
      resource_name: 'Workspace Service',
    });
  });

  it('keeps error="invalid_token" beside resource_metadata for a token that is not valid', async () => {
    const { orgId, users } = await workspace();
    const answer = await fetch(mcpUrl(orgId), {
      method: 'POST',
      headers: { Authorization: `Bearer ${tokenFor(users.owner, { audience: 'someone-else' })}` },
    });

    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource", error="invalid_token", error_description="the bearer token is for another audience or client (aud, client_id)"`,
    );
  });

  it('serves the metadata without a token and without counting it against a rate limit', async () => {
    const answer = await fetch(`${base}/.well-known/oauth-protected-resource`);

    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.headers.get('ratelimit-limit')).toBeNull();
    expect(await answer.json()).toEqual({
      resource: `${base}/mcp`,
      authorization_servers: [base],
      bearer_methods_supported: ['header'],
      resource_name: 'Workspace Service',
    });
  });
});

describe('/mcp over plain HTTP', () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
  };
  const post = (orgId: string, user: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(mcpUrl(orgId), {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${tokenFor(user)}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(body),
    });

  it.each(['GET', 'DELETE', 'PUT'])('answers %s with 405 method_not_allowed and Allow: POST, token or not', async (method) => {
    const answer = await fetch(`${base}/mcp?organization_id=org_x`, { method });

    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('POST');
    expect(await answer.json()).toEqual({
      code: 'method_not_allowed',
      message: `/mcp answers POST, not ${method}`,
      request_id: expect.any(String),
    });
  });

  it('answers in JSON, without a session id, and counts each HTTP request against the rate limit', async () => {
    const { orgId, users } = await workspace();

    const first = await post(orgId, users.viewer, initialize);
    const second = await post(orgId, users.viewer, { jsonrpc: '2.0', id: 2, method: 'tools/list' });

    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/json');
    expect(first.headers.get('mcp-session-id')).toBeNull();
    expect(await first.json()).toMatchObject({ jsonrpc: '2.0', id: 1, result: { protocolVersion: LATEST_PROTOCOL_VERSION } });
    // Both requests may straddle a window boundary; within one window the count goes down by one.
    const [a, b] = [Number(first.headers.get('ratelimit-remaining')), Number(second.headers.get('ratelimit-remaining'))];
    expect(b === a - 1 || b === 299).toBe(true);
    // The 52 operations, the two job tools, get_budget and get_status.
    expect(((await second.json()) as { result: { tools: unknown[] } }).result.tools).toHaveLength(56);
  });

  it('answers a notification with 202 and no body', async () => {
    const { orgId, users } = await workspace();

    const answer = await post(orgId, users.viewer, { jsonrpc: '2.0', method: 'notifications/initialized' });

    expect(answer.status).toBe(202);
    expect(answer.headers.get('content-type')).toBeNull();
    expect(await answer.text()).toBe('');
  });

  it.each([
    ['no organization_id', '/mcp', 400, 'validation_failed'],
    ['a malformed organization_id', '/mcp?organization_id=acme', 400, 'validation_failed'],
  ])('refuses %s with the error body', async (_case, path, status, code) => {
    const { users } = await workspace();
    const answer = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${tokenFor(users.owner)}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(initialize),
    });

    expect(answer.status).toBe(status);
    expect(await answer.json()).toMatchObject({
      code,
      data: { issues: [expect.objectContaining({ path: ['query', 'organization_id'] })] },
    });
  });

  it('refuses an unsupported API version before speaking MCP', async () => {
    const { orgId, users } = await workspace();

    const answer = await post(orgId, users.viewer, initialize, { 'Endless-Api-Version': '2' });

    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ code: 'unsupported_api_version' });
  });

  it('answers a client that does not accept both JSON and SSE with 406, as the transport requires', async () => {
    const { orgId, users } = await workspace();

    const answer = await post(orgId, users.viewer, initialize, { Accept: 'application/json' });

    expect(answer.status).toBe(406);
    expect(await answer.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
    expect(answer.headers.get('x-request-id')).toEqual(expect.any(String));
  });

  it('refuses a JSON-RPC batch, which would run many calls on one count of the rate limit', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const call = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'x_profile', arguments: { handle: 'nasa' } },
    });

    const answer = await post(orgId, users.editor, [call(1), call(2)]);

    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: send one JSON-RPC message per HTTP request (no batches)' },
    });
    expect(await charges(orgId)).toEqual([]);
  });

  it('answers a body that is not JSON-RPC as the MCP transport does: a JSON-RPC parse error', async () => {
    const { orgId, users } = await workspace();

    const answer = await post(orgId, users.viewer, { hello: 'world' });

    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error: Invalid JSON-RPC message' },
    });
  });
});
