/**
 * Our MCP server's answers, written out: what each refusal of the transport and of the protocol
 * says, initialize's negotiation, 202s, and the cases where our rules differ from the SDK's
 * (batches). Requests that need no table; test/mcp/sdk-parity.test.ts compares every branch
 * with the SDK, test/mcp/tools-parity.test.ts the tools' bytes.
 */
import { describe, expect, it } from 'vitest';
import { SERVICE_NAME } from '../../lib/config.ts';
import { serveMcp } from '../../lib/mcp/server.ts';

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const scope = {
  caller: { userId: 'user_unit' },
  orgId: 'org_unit',
  deadlineMs: Date.now() + 60_000,
  requestId: 'req-unit',
  baseUrl: 'https://api.test',
};

/** Our answer to a POST of `body` (a string as it is, anything else as JSON; headers undefined are left out), its body parsed. */
async function post(body: unknown, headers: Record<string, string | undefined> = {}) {
  const sent = Object.entries({ ...HEADERS, ...headers }).filter((entry): entry is [string, string] => entry[1] !== undefined);
  const answer = await serveMcp(
    {
      method: 'POST',
      url: 'https://api.test/mcp?organization_id=org_unit',
      headers: new Headers(sent),
      body: body === undefined || typeof body === 'string' ? body : JSON.stringify(body),
    },
    scope,
  );
  return {
    status: answer.status,
    contentType: answer.headers['content-type'],
    body: answer.text === '' ? undefined : JSON.parse(answer.text),
  };
}

const refusal = (status: number, code: number, message: string) => ({
  status,
  contentType: 'application/json',
  body: { jsonrpc: '2.0', id: null, error: { code, message } },
});
const error = (id: number | string, code: number, message: string) => ({
  status: 200,
  contentType: 'application/json',
  body: { jsonrpc: '2.0', id, error: { code, message } },
});
const result = (id: number | string, value: unknown) => ({
  status: 200,
  contentType: 'application/json',
  body: { jsonrpc: '2.0', id, result: value },
});

const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
const initialize = (protocolVersion: unknown, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 'init',
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'unit', version: '1' }, ...extra },
});

describe('the transport', () => {
  it.each([
    ['without SSE', 'application/json'],
    ['without JSON', 'text/event-stream'],
    ['absent', undefined],
  ])('refuses an Accept %s: 406', async (_case, accept) => {
    expect(await post(ping, { accept })).toEqual(
      refusal(406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream'),
    );
  });

  it.each([
    'text/plain',
    'application/json, text/plain',
    'text/plain; a=application/json',
  ])('refuses Content-Type %s: 415', async (contentType) => {
    expect(await post(ping, { 'content-type': contentType })).toEqual(
      refusal(415, -32000, 'Unsupported Media Type: Content-Type must be application/json'),
    );
  });

  it('takes a Content-Type with parameters, or malformed ones', async () => {
    for (const contentType of ['application/json; charset=utf-8', 'Application/JSON', 'application/json;']) {
      expect(await post(ping, { 'content-type': contentType })).toEqual(result(1, {}));
    }
  });

  it('answers a body that is not JSON, or none, with a parse error', async () => {
    expect(await post('{"jsonrpc": "2.0",')).toEqual(refusal(400, -32700, 'Parse error: Invalid JSON'));
    expect(await post(undefined)).toEqual(refusal(400, -32700, 'Parse error: Invalid JSON'));
  });

  it('refuses a body that is not JSON over 4 MiB, by its length or its Content-Length: 413', async () => {
    const tooLarge = refusal(413, -32000, 'Payload Too Large: Request body must not exceed 4194304 bytes');

    expect(await post('x'.repeat(4 * 1024 * 1024 + 1))).toEqual(tooLarge);
    expect(await post('x', { 'content-length': String(4 * 1024 * 1024 + 1) })).toEqual(tooLarge);
    expect(await post('x'.repeat(4 * 1024 * 1024))).toEqual(refusal(400, -32700, 'Parse error: Invalid JSON'));
  });

  it('reads a body behind a byte order mark, as the SDK does', async () => {
    expect(await post(`\uFEFF${JSON.stringify(ping)}`)).toEqual(result(1, {}));
  });

  it.each([
    ['null', null],
    ['a number', 5],
    ['another JSON-RPC version', { ...ping, jsonrpc: '1.0' }],
    ['a null id', { ...ping, id: null }],
    ['a fractional id', { ...ping, id: 1.5 }],
    ['an unknown member', { ...ping, extra: 1 }],
    ['params that are an array', { ...ping, params: [1] }],
    ['an invalid progress token', { ...ping, params: { _meta: { progressToken: 1.5 } } }],
    ["an error response with a null id (JSON-RPC's, not the SDK's)", { jsonrpc: '2.0', id: null, error: { code: 1, message: 'x' } }],
  ])('refuses a message with %s: 400', async (_case, message) => {
    expect(await post(message)).toEqual(refusal(400, -32700, 'Parse error: Invalid JSON-RPC message'));
  });

  it('refuses an MCP-Protocol-Version it does not speak: 400, naming those it does', async () => {
    expect(await post(ping, { 'mcp-protocol-version': '1999-01-01' })).toEqual(
      refusal(
        400,
        -32000,
        'Bad Request: Unsupported protocol version: 1999-01-01 (supported versions: 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05, 2024-10-07)',
      ),
    );
    expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-protocol-version': 'x' })).status).toBe(400);
    expect(await post(ping, { 'mcp-protocol-version': '2025-06-18' })).toEqual(result(1, {}));
  });

  it.each([
    ['a notification', { jsonrpc: '2.0', method: 'notifications/initialized' }],
    ['an unknown notification', { jsonrpc: '2.0', method: 'notifications/whatever', params: { x: 1 } }],
    ["a client's response", { jsonrpc: '2.0', id: 5, result: {} }],
    ["a client's error response", { jsonrpc: '2.0', id: 'a', error: { code: -32601, message: 'Method not found' } }],
  ])('accepts %s: 202, no body, no Content-Type', async (_case, message) => {
    expect(await post(message)).toEqual({ status: 202, contentType: undefined, body: undefined });
  });

  it('issues no session and ignores one sent (stateless)', async () => {
    const headers = new Headers({ ...HEADERS, 'mcp-session-id': 'made-up' });
    const answer = await serveMcp({ method: 'POST', url: 'https://api.test/mcp', headers, body: JSON.stringify(ping) }, scope);

    expect({ status: answer.status, headers: answer.headers }).toEqual({ status: 200, headers: { 'content-type': 'application/json' } });
  });
});

describe('batches (our rule: the SDK would run them)', () => {
  const batchRefused = refusal(400, -32600, 'Invalid Request: send one JSON-RPC message per HTTP request (no batches)');

  it('refuses a batch before anything else, whatever the headers', async () => {
    expect(await post([ping, ping])).toEqual(batchRefused);
    expect(await post([], { accept: 'text/plain', 'content-type': 'text/plain' })).toEqual(batchRefused);
  });

  it('refuses one behind a byte order mark too', async () => {
    expect(await post(`\uFEFF${JSON.stringify([ping])}`)).toEqual(batchRefused);
  });
});

describe('initialize', () => {
  const answer = (protocolVersion: string) =>
    result('init', {
      protocolVersion,
      capabilities: { tools: {} },
      serverInfo: {
        name: SERVICE_NAME,
        title: 'Workspace Service',
        version: '1.0.0',
        // The service's icon, on the origin the client reached (lib/icons.ts).
        icons: [
          {
            src: expect.stringMatching(/^https:\/\/api\.test\/console\/icon-service\.[0-9a-f]{16}\.svg$/),
            mimeType: 'image/svg+xml',
            sizes: ['any'],
          },
        ],
      },
      instructions: expect.stringContaining('Every call spends workspace credits'),
    });

  it.each(['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'])('agrees to %s', async (version) => {
    expect(await post(initialize(version))).toEqual(answer(version));
  });

  it('answers a version it does not speak with its latest', async () => {
    expect(await post(initialize('2099-01-01'))).toEqual(answer('2025-11-25'));
  });

  it('negotiates whatever MCP-Protocol-Version came with it', async () => {
    expect(await post(initialize('2025-06-18'), { 'mcp-protocol-version': '1999-01-01' })).toEqual(answer('2025-06-18'));
  });

  it("answers invalid params with zod's issues, as the SDK does", async () => {
    const answered = await post(initialize(5, { clientInfo: { name: 'unit' } }));

    expect({ status: answered.status, id: answered.body.id, code: answered.body.error.code }).toEqual({
      status: 200,
      id: 'init',
      code: -32603,
    });
    expect(JSON.parse(answered.body.error.message)).toEqual([
      {
        expected: 'string',
        code: 'invalid_type',
        path: ['params', 'protocolVersion'],
        message: 'Invalid input: expected string, received number',
      },
      {
        expected: 'string',
        code: 'invalid_type',
        path: ['params', 'clientInfo', 'version'],
        message: 'Invalid input: expected string, received undefined',
      },
    ]);
  });
});

describe('methods', () => {
  it('answers ping with an empty result', async () => {
    expect(await post({ ...ping, params: { _meta: { progressToken: 'p' } } })).toEqual(result(1, {}));
  });

  it.each([
    'resources/list',
    'prompts/list',
    'logging/setLevel',
    'completion/complete',
    'tasks/get',
    'notifications/initialized',
    'constructor',
    '',
  ])('answers %s: -32601 Method not found', async (method) => {
    expect(await post({ jsonrpc: '2.0', id: 'm', method })).toEqual(error('m', -32601, 'Method not found'));
  });

  it.each(['tools/call', 'tools/list', 'ping', 'initialize'])('refuses a task asked of %s: no task capability', async (method) => {
    expect(await post({ jsonrpc: '2.0', id: 2, method, params: { name: 'x_profile', task: { ttl: 1 } } })).toEqual(
      error(2, -32603, `Server does not support task creation (required for ${method})`),
    );
  });

  it("answers a tools/call without a name with the SDK schema's issues", async () => {
    const answered = await post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { arguments: 5 } });

    expect(answered.body.error.code).toBe(-32603);
    expect(JSON.parse(answered.body.error.message)).toEqual([
      { expected: 'string', code: 'invalid_type', path: ['params', 'name'], message: 'Invalid input: expected string, received undefined' },
      {
        expected: 'record',
        code: 'invalid_type',
        path: ['params', 'arguments'],
        message: 'Invalid input: expected record, received number',
      },
    ]);
  });

  it('answers a tools/list with a cursor that is not a string with the issue', async () => {
    const answered = await post({ jsonrpc: '2.0', id: 4, method: 'tools/list', params: { cursor: 5 } });

    expect(JSON.parse(answered.body.error.message)).toEqual([
      { expected: 'string', code: 'invalid_type', path: ['params', 'cursor'], message: 'Invalid input: expected string, received number' },
    ]);
  });

  it('answers an unknown tool: -32602, naming it', async () => {
    expect(await post({ jsonrpc: '2.0', id: 'u', method: 'tools/call', params: { name: 'myspace_profile' } })).toEqual(
      error('u', -32602, 'Unknown tool: myspace_profile'),
    );
  });
});
