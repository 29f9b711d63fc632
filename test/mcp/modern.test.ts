/**
 * MCP 2026-07-28 beside 2025-11-25 on one endpoint (docs/mcp.md, "Two revisions"), through the
 * real handler on DynamoDB Local: every refusal of a modern request with its exact body and HTTP
 * status, both eras' answers side by side, jobs as tasks, and the icons the listings name.
 */
import { describe, expect, it } from 'vitest';
import { handler as consoleAsset } from '../../functions/get-console-asset.ts';
import { handler as mcp } from '../../functions/mcp.ts';
import { ICON_SVGS } from '../../lib/icons.ts';
import { INSTRUCTIONS } from '../../lib/mcp/initialize.ts';
import { statusPage } from '../../lib/social/health/status.ts';
import { workspace } from '../support/fixtures.ts';
import { call } from '../support/http.ts';
import { drainJobs } from '../support/jobs.ts';
import { tokenFor } from '../support/tokens.ts';

const MODERN = '2026-07-28';
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const TRANSPORT = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const envelope = (capabilities: object = {}, version = MODERN) => ({
  'io.modelcontextprotocol/protocolVersion': version,
  'io.modelcontextprotocol/clientCapabilities': capabilities,
  'io.modelcontextprotocol/clientInfo': { name: 'test-agent', version: '1.0.0' },
});

/** The headers a 2026-07-28 client sends with this method and params. */
const modernHeaders = (method: string, params: Record<string, unknown>) => ({
  'mcp-protocol-version': MODERN,
  'mcp-method': method,
  ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
  ...(typeof params.taskId === 'string' ? { 'mcp-name': params.taskId } : {}),
});

/**
 * `contract`: openapi.json describes the service's error body at 400; the MCP transport's own
 * refusals (the legacy ones as these) are JSON-RPC errors, asserted whole here instead.
 */
const post = (orgId: string, user: string | undefined, body: unknown, headers: Record<string, string> = {}, contract = true) =>
  call(mcp, {
    method: 'POST',
    url: `/mcp?organization_id=${orgId}`,
    token: user && tokenFor(user),
    headers: { ...TRANSPORT, ...headers },
    body,
    contract,
  });

/** A well-formed modern request; `capabilities` are the request's client capabilities. */
const modern = (orgId: string, user: string, method: string, params: Record<string, unknown> = {}, capabilities: object = TASKS) =>
  post(orgId, user, { jsonrpc: '2.0', id: 7, method, params: { ...params, _meta: envelope(capabilities) } }, modernHeaders(method, params));

const { orgId, users } = await workspace({ credits: 20 });

const error = (status: number, code: number, message: string, data?: unknown) => ({
  status,
  body: { jsonrpc: '2.0', id: 7, error: { code, message, ...(data === undefined ? {} : { data }) } },
});
const mismatch = (header: string, body: string) =>
  error(400, -32020, `Bad Request: the request headers and body disagree: ${body}`, { mismatch: { header, body } });

describe('a 2026-07-28 request refused before any method runs', () => {
  const listTools = { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: envelope() } };
  const callProfile = {
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: { name: 'x_profile', arguments: { handle: 'nasa' }, _meta: envelope() },
  };
  const b64 = (text: string) => `=?base64?${Buffer.from(text).toString('base64')}?=`;
  const headers = { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' };
  const callHeaders = { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'x_profile' };

  type Row = [name: string, body: unknown, headers: Record<string, string>, expected: ReturnType<typeof error>];
  it.each<Row>([
    [
      'the modern header on a request without the envelope',
      { jsonrpc: '2.0', id: 7, method: 'tools/list' },
      headers,
      error(
        400,
        -32602,
        'Invalid params: the MCP-Protocol-Version header names protocol revision 2026-07-28, but the request is missing the required per-request envelope key(s): _meta',
        { envelope: { missing: ['_meta'] } },
      ),
    ],
    [
      'an envelope without client capabilities',
      { ...listTools, params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } } },
      headers,
      error(400, -32602, 'Invalid _meta envelope for protocol revision 2026-07-28: io.modelcontextprotocol/clientCapabilities: missing', {
        envelope: { key: 'io.modelcontextprotocol/clientCapabilities', problem: 'missing' },
      }),
    ],
    [
      'initialize (the legacy handshake) under the modern header',
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'initialize',
        params: { protocolVersion: MODERN, capabilities: {}, clientInfo: { name: 'a', version: '1' } },
      },
      { 'mcp-protocol-version': MODERN },
      mismatch(MODERN, 'an initialize request (legacy handshake) was sent with a modern MCP-Protocol-Version header'),
    ],
    [
      'no MCP-Protocol-Version header',
      listTools,
      { 'mcp-method': 'tools/list' },
      mismatch('(missing)', 'the body envelope names protocol version 2026-07-28 but the required MCP-Protocol-Version header is absent'),
    ],
    [
      'a header unequal to the claim',
      listTools,
      { ...headers, 'mcp-protocol-version': '2025-11-25' },
      mismatch('2025-11-25', 'the body envelope names protocol version 2026-07-28 but the MCP-Protocol-Version header names 2025-11-25'),
    ],
    [
      'a claim of a revision not served',
      { ...listTools, params: { _meta: envelope({}, '2027-01-01') } },
      { ...headers, 'mcp-protocol-version': '2027-01-01' },
      error(
        400,
        -32022,
        'Unsupported protocol version: 2027-01-01 (this server speaks 2026-07-28 per request; 2025-11-25 and earlier begin with initialize)',
        {
          supported: [MODERN],
          requested: '2027-01-01',
        },
      ),
    ],
    [
      'no Mcp-Method header',
      listTools,
      { 'mcp-protocol-version': MODERN },
      mismatch('(missing)', 'the body names method tools/list but the required Mcp-Method header is absent'),
    ],
    [
      'an Mcp-Method of another case',
      listTools,
      { ...headers, 'mcp-method': 'Tools/List' },
      mismatch('Tools/List', 'the body names method tools/list but the Mcp-Method header names Tools/List'),
    ],
    [
      'no Mcp-Name on tools/call',
      callProfile,
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call' },
      mismatch('(missing)', 'the body carries params.name="x_profile" but the required Mcp-Name header is absent'),
    ],
    [
      'an Mcp-Name naming another tool (Base64-encoded)',
      callProfile,
      { ...callHeaders, 'mcp-name': ` ${b64('x_posts')} ` },
      mismatch(b64('x_posts'), 'the body carries params.name="x_profile" but the Mcp-Name header names "x_posts"'),
    ],
    [
      'an Mcp-Name with broken Base64',
      callProfile,
      { ...callHeaders, 'mcp-name': '=?base64?eF9wc*9maWxl?=' },
      mismatch('=?base64?eF9wc*9maWxl?=', 'the Mcp-Name header carries an invalid Base64 sentinel value'),
    ],
    [
      'initialize under a modern envelope',
      { jsonrpc: '2.0', id: 7, method: 'initialize', params: { _meta: envelope() } },
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'initialize' },
      error(404, -32601, 'Method not found'),
    ],
    ...['ping', 'resources/list', 'tasks/list', 'tasks/result', 'subscriptions/listen'].map(
      (method): Row => [
        `${method}, not served`,
        { jsonrpc: '2.0', id: 7, method, params: { _meta: envelope() } },
        { 'mcp-protocol-version': MODERN, 'mcp-method': method },
        error(404, -32601, 'Method not found'),
      ],
    ),
    [
      'tasks/get without the tasks extension on the request',
      { jsonrpc: '2.0', id: 7, method: 'tasks/get', params: { taskId: 'job_0', _meta: envelope() } },
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'tasks/get', 'mcp-name': 'job_0' },
      error(400, -32021, "tasks/get needs the io.modelcontextprotocol/tasks extension declared in the request's client capabilities", {
        requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } },
      }),
    ],
    [
      'tools/call of a tool the catalog does not know (an error of the method: HTTP 200)',
      { ...callProfile, params: { name: 'nope', _meta: envelope() } },
      { ...callHeaders, 'mcp-name': 'nope' },
      error(200, -32602, 'Unknown tool: nope'),
    ],
  ])('%s', async (_case, body, requestHeaders, expected) => {
    const answer = await post(orgId, users.viewer, body, requestHeaders, false);

    expect({ status: answer.status, body: answer.body }).toEqual(expected);
  });

  it('holds the chain in front as for a legacy request: 401 without a token; a notification is 202', async () => {
    const unauthenticated = await post(
      orgId,
      undefined,
      { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: envelope() } },
      headers,
    );
    const notification = await post(
      orgId,
      users.viewer,
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3, _meta: envelope() } },
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'notifications/cancelled' },
    );

    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers['www-authenticate']).toContain('resource_metadata=');
    expect({ status: notification.status, raw: notification.raw }).toEqual({ status: 202, raw: '' });
  });
});

describe('both eras side by side', () => {
  it('lists the same tools, the modern answer with resultType, ttlMs, cacheScope and serverInfo; discover answers the server', async () => {
    const legacy = await post(
      orgId,
      users.viewer,
      { jsonrpc: '2.0', id: 7, method: 'tools/list' },
      { 'mcp-protocol-version': '2025-11-25' },
    );
    const listed = await modern(orgId, users.viewer, 'tools/list');
    const discovered = await modern(orgId, users.viewer, 'server/discover');

    const serverInfo = {
      name: 'workspace-service',
      title: 'Workspace Service',
      version: '1.0.0',
      icons: [
        {
          src: expect.stringMatching(/^http:\/\/127\.0\.0\.1\/console\/icon-service\.[0-9a-f]{16}\.svg$/),
          mimeType: 'image/svg+xml',
          sizes: ['any'],
        },
      ],
    };
    expect(Object.keys(legacy.body.result)).toEqual(['tools']);
    expect(listed.status).toBe(200);
    expect(listed.body.result).toEqual({
      tools: legacy.body.result.tools,
      ttlMs: 300000,
      cacheScope: 'private',
      resultType: 'complete',
      _meta: { 'io.modelcontextprotocol/serverInfo': serverInfo },
    });
    expect(discovered.body.result).toEqual({
      resultType: 'complete',
      supportedVersions: [MODERN],
      capabilities: { tools: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } },
      instructions: INSTRUCTIONS,
      ttlMs: 3600000,
      cacheScope: 'public',
      _meta: { 'io.modelcontextprotocol/serverInfo': serverInfo },
    });
  });

  it('runs tools/call in both (Mcp-Name Base64-encoded and padded with spaces); a legacy tasks/get is -32601 at 200', async () => {
    const params = { name: 'get_budget', arguments: {} };
    const legacy = await post(orgId, users.viewer, { jsonrpc: '2.0', id: 7, method: 'tools/call', params });
    const current = await post(
      orgId,
      users.viewer,
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { ...params, _meta: envelope() } },
      {
        'mcp-protocol-version': MODERN,
        'mcp-method': ' tools/call ',
        'mcp-name': ` =?base64?${Buffer.from('get_budget').toString('base64')}?= `,
      },
    );
    const legacyTask = await post(orgId, users.viewer, { jsonrpc: '2.0', id: 7, method: 'tasks/get', params: { taskId: 'job_0' } });

    expect(legacy.body.result.resultType).toBeUndefined();
    expect(current.status).toBe(200);
    const { resultType, _meta, ...rest } = current.body.result;
    expect(resultType).toBe('complete');
    expect(Object.keys(_meta)).toEqual(['io.modelcontextprotocol/serverInfo']);
    expect(rest).toEqual(legacy.body.result);
    expect({ status: legacyTask.status, body: legacyTask.body }).toEqual(error(200, -32601, 'Method not found'));

    // get_status in both eras: the body of GET /social/status, as structured content and as text.
    const status = { name: 'get_status', arguments: {} };
    const [legacyStatus, currentStatus] = await Promise.all([
      post(orgId, users.viewer, { jsonrpc: '2.0', id: 8, method: 'tools/call', params: status }),
      post(
        orgId,
        users.viewer,
        { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { ...status, _meta: envelope() } },
        { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'get_status' },
      ),
    ]);
    const page = JSON.parse(JSON.stringify(await statusPage()));
    expect(page.operations).toHaveLength(52);
    for (const answer of [legacyStatus, currentStatus]) {
      expect(answer.body.result.structuredContent).toEqual(page);
      expect(JSON.parse(answer.body.result.content[0].text)).toEqual(page);
    }
  });
});

describe('jobs as tasks', () => {
  const startJob = (user: string, capabilities: object = TASKS) =>
    modern(
      orgId,
      user,
      'tools/call',
      { name: 'start_job', arguments: { operation: 'x_profile', inputs: [{ handle: 'nasa' }, { handle: 'nike' }] } },
      capabilities,
    );

  it('answers start_job as a working task, then tasks/get completed with what get_job answers', async () => {
    const started = await startJob(users.editor);
    const taskId = started.body.result.taskId;
    const working = await modern(orgId, users.viewer, 'tasks/get', { taskId });
    await drainJobs();
    const completed = await modern(orgId, users.viewer, 'tasks/get', { taskId });
    const getJob = await post(orgId, users.viewer, {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'get_job', arguments: { job_id: taskId } },
    });

    const task = {
      taskId: expect.stringMatching(/^job_[0-9a-f]{32}$/),
      status: 'working',
      statusMessage: '0 of 2 items done',
      createdAt: expect.any(String),
      lastUpdatedAt: expect.any(String),
      ttlMs: null,
      pollIntervalMs: 5000,
    };
    expect(started.body.result).toEqual({
      resultType: 'task',
      ...task,
      _meta: { 'io.modelcontextprotocol/serverInfo': expect.any(Object) },
    });
    expect(working.body.result).toEqual({ resultType: 'complete', ...task, taskId, _meta: expect.any(Object) });
    expect(completed.body.result).toEqual({
      resultType: 'complete',
      ...task,
      taskId,
      status: 'completed',
      statusMessage: '2 of 2 items done',
      result: getJob.body.result,
      _meta: expect.any(Object),
    });
    expect(completed.body.result.result.structuredContent.job).toMatchObject({ status: 'completed', succeeded: 2, charged: 2 });
  });

  it('cancels for editors, refuses viewers with -32010, and answers -32602 for unknown, malformed and foreign ids', async () => {
    const taskId = (await startJob(users.editor)).body.result.taskId;
    const other = await workspace({ credits: 5 });
    const foreignJob = (
      await modern(other.orgId, other.users.editor, 'tools/call', {
        name: 'start_job',
        arguments: { operation: 'x_profile', inputs: [{ handle: 'nasa' }] },
      })
    ).body.result.taskId;

    const byViewer = await modern(orgId, users.viewer, 'tasks/cancel', { taskId });
    const byEditor = await modern(orgId, users.editor, 'tasks/cancel', { taskId });
    const updated = await modern(orgId, users.viewer, 'tasks/update', { taskId });
    const after = await modern(orgId, users.viewer, 'tasks/get', { taskId });
    const unknown = await Promise.all(
      [`job_${'0'.repeat(32)}`, 'job_x', foreignJob].map((id) => modern(orgId, users.viewer, 'tasks/get', { taskId: id })),
    );
    await drainJobs();

    expect(byViewer.status).toBe(200);
    expect(byViewer.body.error).toEqual({
      code: -32010,
      message: 'forbidden: only editors and owners can cancel jobs',
      data: { code: 'forbidden', message: 'only editors and owners can cancel jobs', request_id: expect.any(String) },
    });
    expect(byEditor.body.result).toEqual({ resultType: 'complete', _meta: expect.any(Object) });
    expect(updated.body.result).toEqual({ resultType: 'complete', _meta: expect.any(Object) });
    expect(after.body.result).toMatchObject({ status: 'cancelled', statusMessage: '2 of 2 items done' });
    expect(unknown.map((answer) => [answer.status, answer.body.error.code, answer.body.error.message])).toEqual([
      [200, -32602, `Unknown task: job_${'0'.repeat(32)}`],
      [200, -32602, 'Unknown task: job_x'],
      [200, -32602, `Unknown task: ${foreignJob}`],
    ]);
  });

  it('answers start_job as the job itself when the request does not declare the extension', async () => {
    const started = await startJob(users.editor, {});
    await drainJobs();

    expect(started.body.result).toMatchObject({
      resultType: 'complete',
      structuredContent: { id: expect.stringMatching(/^job_/), status: 'queued' },
    });
    expect(started.body.result.taskId).toBeUndefined();
  });
});

describe('icons', () => {
  it('names one per network and one for the service, each served by the console asset route: SVG, a year, no script', async () => {
    const every = await workspace({ networks: ['instagram', 'x', 'tiktok', 'youtube', 'facebook', 'linkedin', 'reddit'] });
    const { tools } = (await modern(every.orgId, every.users.viewer, 'tools/list')).body.result as {
      tools: { name: string; icons: { src: string }[] }[];
    };
    const sources = [...new Set(tools.map((tool) => tool.icons[0]!.src))];
    // The service's tools share one icon: the service's.
    const iconOf = (name: string) => tools.find((tool) => tool.name === name)?.icons[0]?.src;
    expect(iconOf('get_status')).toBe(iconOf('get_budget'));

    const served = await Promise.all(
      sources.map((src) =>
        call(consoleAsset, { method: 'GET', url: new URL(src).pathname, headers: { 'accept-encoding': 'identity' }, contract: false }),
      ),
    );

    expect(sources).toHaveLength(8);
    for (const answer of served) {
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe('image/svg+xml');
      expect(answer.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(Object.values(ICON_SVGS)).toContain(answer.raw);
      expect(answer.raw).not.toMatch(/<script|on[a-z]+=|href=/i);
    }
    const stale = await call(consoleAsset, { method: 'GET', url: '/console/icon-x.0000000000000000.svg', contract: false });
    expect(stale.status).toBe(404);
  });
});

describe('consent before an expensive call', async () => {
  const { getOrganization, changeOrganizationSettings } = await import('../../lib/db/organizations.ts');
  const { createApiKey } = await import('../../lib/db/api-keys.ts');
  const { newApiKeyRecord } = await import('../../lib/auth/api-key-record.ts');
  const { argumentsDigest, ConsentNeeded, confirmationRequired } = await import('../../lib/mcp/consent.ts');
  const { apiKeyTokenWith, publishTestSigningKey } = await import('../support/tokens.ts');
  const { call } = await import('../support/http.ts');

  const ask = await workspace({ credits: 50 });
  const source = { actor: { type: 'user' as const, id: ask.users.owner, client_id: null }, request_id: null, source_ip: null };
  await changeOrganizationSettings(ask.orgId, { confirmAbove: 0 }, source, new Date());
  // A key whose own threshold (1) is lower than its organization's (5): the key's holds.
  const keyed = await workspace({ credits: 50 });
  await changeOrganizationSettings(keyed.orgId, { confirmAbove: 5 }, source, new Date());
  const key = newApiKeyRecord({
    orgId: keyed.orgId,
    name: 'agent',
    role: 'editor',
    createdById: keyed.users.owner,
    days: 1,
    now: new Date(),
    confirmAbove: 1,
  });
  await Promise.all([createApiKey(key, source, new Date()), publishTestSigningKey()]);

  const balance = async (org: string) => (await getOrganization(org))?.credits;
  /** A legacy tools/call, with a user's token or a key's. */
  const legacy = (org: string, who: { user?: string; token?: string }, name: string, args: Record<string, unknown>, id = 7) =>
    call(mcp, {
      method: 'POST',
      url: `/mcp?organization_id=${org}`,
      token: who.token ?? (who.user && tokenFor(who.user)),
      headers: TRANSPORT,
      body: { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } },
    });
  const refusal = (answer: { body: { result: { isError?: boolean; content: { text: string }[] } } }) => {
    expect(answer.body.result.isError).toBe(true);
    return JSON.parse(answer.body.result.content[0]?.text ?? '{}') as { code: string; message: string; data: Record<string, unknown> };
  };
  const profile = { handle: 'nasa' };

  it('lists the _confirm_token argument on the tools that spend only while a threshold applies', async () => {
    const list = (org: string, user: string) => post(org, user, { jsonrpc: '2.0', id: 7, method: 'tools/list' });
    const [asking, plain] = await Promise.all([list(ask.orgId, ask.users.viewer), list(orgId, users.viewer)]);
    const argumentsOf = (answer: Awaited<ReturnType<typeof list>>, name: string) =>
      Object.keys(answer.body.result.tools.find((tool: { name: string }) => tool.name === name).inputSchema.properties);
    expect(argumentsOf(asking, 'x_profile')).toContain('_confirm_token');
    expect(argumentsOf(asking, 'start_job')).toContain('_confirm_token');
    expect(argumentsOf(asking, 'get_budget')).not.toContain('_confirm_token');
    expect(argumentsOf(plain, 'x_profile')).not.toContain('_confirm_token');
    expect(argumentsOf(plain, 'start_job')).not.toContain('_confirm_token');
  });

  it('asks a legacy client with a token, runs once with it, and refuses reuse, alteration, other arguments and another caller', async () => {
    const before = await balance(ask.orgId);
    const asked = refusal(await legacy(ask.orgId, { user: ask.users.editor }, 'x_profile', profile));
    expect(asked).toMatchObject({
      code: 'confirmation_required',
      data: { cost: 1, confirm_above: 0, scope: 'organization', balance: before, confirm_token: expect.any(String) },
    });
    expect(asked.message).toContain('"_confirm_token"');
    expect(Date.parse(String(asked.data.expires_at)) - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(await balance(ask.orgId)).toBe(before);
    const token = String(asked.data.confirm_token);

    const ran = await legacy(ask.orgId, { user: ask.users.editor }, 'x_profile', { ...profile, _confirm_token: token });
    expect(ran.body.result.isError).toBeUndefined();
    expect(ran.body.result.structuredContent).toBeDefined();
    expect(await balance(ask.orgId)).toBe((before ?? 0) - 1);

    const invalid = async (who: { user?: string }, args: Record<string, unknown>) =>
      refusal(await legacy(ask.orgId, who, 'x_profile', args)).data.reason;
    const flipped = `${token.slice(0, -2)}${token.at(-2) === 'A' ? 'B' : 'A'}${token.at(-1)}`;
    const fresh = String(refusal(await legacy(ask.orgId, { user: ask.users.editor }, 'x_profile', profile)).data.confirm_token);
    expect(await invalid({ user: ask.users.editor }, { ...profile, _confirm_token: token })).toBe('used');
    expect(await invalid({ user: ask.users.editor }, { ...profile, _confirm_token: flipped })).toBe('malformed');
    expect(await invalid({ user: ask.users.editor }, { ...profile, _confirm_token: 42 })).toBe('malformed');
    expect(await invalid({ user: ask.users.editor }, { handle: 'esa', _confirm_token: fresh })).toBe('mismatch');
    expect(await invalid({ user: ask.users.owner }, { ...profile, _confirm_token: fresh })).toBe('mismatch');
    // Another tool with the same arguments.
    expect(
      refusal(await legacy(ask.orgId, { user: ask.users.editor }, 'x_user_posts', { ...profile, _confirm_token: fresh })).data.reason,
    ).toBe('mismatch');
    expect(await balance(ask.orgId)).toBe((before ?? 0) - 1);
  });

  it('refuses an expired token, and of two calls with one token runs one, charged once', async () => {
    const before = (await balance(ask.orgId)) ?? 0;
    const scope = { caller: { userId: ask.users.editor }, orgId: ask.orgId, deadlineMs: 0, requestId: 'r', baseUrl: 'http://x' };
    const call = { tool: 'x_profile', digest: argumentsDigest('x_profile', profile, undefined) };
    const needed = new ConsentNeeded(1, { credits: 0, scope: 'organization' }, before);
    const stale = (await confirmationRequired(scope, call, needed, Date.now() - 11 * 60_000)).details.data?.confirm_token;
    expect(
      refusal(await legacy(ask.orgId, { user: ask.users.editor }, 'x_profile', { ...profile, _confirm_token: stale })).data.reason,
    ).toBe('expired');

    const token = refusal(await legacy(ask.orgId, { user: ask.users.editor }, 'x_profile', profile)).data.confirm_token;
    const both = await Promise.all(
      [8, 9].map((id) => legacy(ask.orgId, { user: ask.users.editor }, 'x_profile', { ...profile, _confirm_token: token }, id)),
    );
    const outcomes = both.map((answer) => (answer.body.result.isError ? refusal(answer).data.reason : 'ran')).sort();
    expect(outcomes).toEqual(['ran', 'used']);
    expect(await balance(ask.orgId)).toBe(before - 1);
  });

  it('asks a modern client that declares form elicitation, runs on its acceptance, and asks again for a used state', async () => {
    const before = (await balance(ask.orgId)) ?? 0;
    const elicit = { elicitation: { form: {} } };
    const tool = (extra: Record<string, unknown> = {}, capabilities: object = elicit) =>
      modern(ask.orgId, ask.users.editor, 'tools/call', { name: 'x_profile', arguments: profile, ...extra }, capabilities);
    const asked = await tool();
    expect(asked.status).toBe(200);
    expect(asked.body.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: {
        consent: {
          method: 'elicitation/create',
          params: {
            mode: 'form',
            message: `x_profile for {"handle":"nasa"} costs 1 credit (balance ${before}). Run it?`,
            requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
          },
        },
      },
      requestState: expect.any(String),
      _meta: { 'io.modelcontextprotocol/serverInfo': expect.any(Object) },
    });
    const { requestState } = asked.body.result;
    const accept = { consent: { action: 'accept', content: { confirm: true } } };

    const unanswered = await tool({ requestState, inputResponses: {} });
    expect(unanswered.body.result.resultType).toBe('input_required');
    const declined = await tool({ requestState, inputResponses: { consent: { action: 'decline' } } });
    expect(JSON.parse(declined.body.result.content[0].text).code).toBe('consent_declined');
    const ran = await tool({ requestState, inputResponses: accept });
    expect(ran.body.result).toMatchObject({ resultType: 'complete', structuredContent: expect.any(Object) });
    expect(ran.body.result.isError).toBeUndefined();
    const again = await tool({ requestState, inputResponses: accept });
    expect(again.body.result.resultType).toBe('input_required');
    const altered = await tool({ requestState: `${requestState}x`, inputResponses: accept });
    expect(altered.body.error).toMatchObject({ code: -32602, message: 'Invalid params: requestState is not one this server issued' });
    // Without form elicitation, a modern client gets the token as a legacy one does.
    const withoutForm = await tool({}, TASKS);
    expect(JSON.parse(withoutForm.body.result.content[0].text).code).toBe('confirmation_required');
    expect(await balance(ask.orgId)).toBe(before - 1);
  });

  it("holds an API key to the lower of its own and its organization's thresholds, start_job quoted for all its inputs", async () => {
    const token = apiKeyTokenWith(key.id, keyed.orgId);
    const before = (await balance(keyed.orgId)) ?? 0;
    // 1 credit is not above the key's 1: it runs without asking.
    const cheap = await legacy(keyed.orgId, { token }, 'x_profile', profile);
    expect(cheap.body.result.isError).toBeUndefined();
    const job = { operation: 'x_profile', inputs: [{ handle: 'nasa' }, { handle: 'nike' }, { handle: 'esa' }] };
    const asked = refusal(await legacy(keyed.orgId, { token }, 'start_job', job));
    expect(asked).toMatchObject({ code: 'confirmation_required', data: { cost: 3, confirm_above: 1, scope: 'api_key' } });
    // The job's cap bounds its quote: capped at 1, it starts without asking.
    const capped = await legacy(keyed.orgId, { token }, 'start_job', { ...job, max_credits: 1 });
    expect(capped.body.result.structuredContent).toMatchObject({ status: 'queued', max_credits: 1 });
    const started = await legacy(keyed.orgId, { token }, 'start_job', { ...job, _confirm_token: asked.data.confirm_token });
    expect(started.body.result.structuredContent).toMatchObject({ status: 'queued', total: 3 });
    const reused = refusal(await legacy(keyed.orgId, { token }, 'start_job', { ...job, _confirm_token: asked.data.confirm_token }));
    expect(reused.data.reason).toBe('used');
    const credits = await call((await import('../../functions/get-credits.ts')).handler, {
      method: 'GET',
      url: `/organizations/${keyed.orgId}/credits`,
      token,
    });
    expect(credits.body.confirm_above).toEqual({ credits: 1, scope: 'api_key' });
    expect(await balance(keyed.orgId)).toBe(before - 1);
  });
});
