/**
 * Our MCP server (lib/mcp/server.ts) against the MCP SDK 1.32.2's `Server` and transport as the
 * function configured them before (test/support/mcp-sdk-oracle.ts): the same requests asked of
 * both, the same status, Content-Type and JSON body expected. A corpus through every branch of
 * the SDK's transport and protocol (headers, bodies, message kinds, ids, methods, params,
 * versions, tasks), then generated messages. tools/list and tools/call are asked of a workspace
 * whose member may list but not run, so that no answer changes what the next one reads;
 * test/mcp/tools-parity.test.ts compares runs, on twin workspaces, byte for byte.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { serveMcp } from '../../lib/mcp/server.ts';
import { workspace } from '../support/fixtures.ts';
import { fuzzRuns } from '../support/fuzz.ts';
import { likelyRequest, METHODS, message, PROTOCOL_VERSIONS } from '../support/mcp-arbitraries.ts';
import { serveWithSdk } from '../support/mcp-sdk-oracle.ts';

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

let scope: { caller: { userId: string }; orgId: string; deadlineMs: number; requestId: string; baseUrl: string };
beforeAll(async () => {
  const { orgId, users } = await workspace({ roles: ['viewer'], networks: ['x', 'reddit'] });
  scope = {
    caller: { userId: users.viewer },
    orgId,
    deadlineMs: Date.now() + 600_000,
    requestId: 'req-sdk-parity',
    baseUrl: 'https://api.test',
  };
});

/** What a client reads of an answer: status, Content-Type (or none), the body as JSON (or none). */
const reading = (answer: { status: number; headers: Record<string, string>; text: string }) => ({
  status: answer.status,
  contentType: answer.headers['content-type'],
  body: answer.text === '' ? undefined : JSON.parse(answer.text),
});

/** Both answers to a POST of `body` (a string as it is, anything else as JSON; headers undefined are left out). */
async function bothReadings(body: unknown, headers: Record<string, string | undefined> = {}) {
  const sent = Object.entries({ ...HEADERS, ...headers }).filter((entry): entry is [string, string] => entry[1] !== undefined);
  const parts = () => ({
    method: 'POST',
    url: `https://api.test/mcp?organization_id=${scope.orgId}`,
    headers: new Headers(sent),
    body: body === undefined || typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { ours: reading(await serveMcp(parts(), scope)), sdk: reading(await serveWithSdk(parts(), scope)) };
}

const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
const call = (params: unknown) => ({ jsonrpc: '2.0', id: 3, method: 'tools/call', params });
const initialize = (params: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 'init',
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'parity', version: '1' }, ...params },
});

describe('the transport', () => {
  it.each([
    undefined,
    'application/json',
    'text/event-stream',
    'application/json, text/event-stream',
    'text/event-stream;q=0.9, application/json, */*',
    '*/*',
    'application/jsonl, text/event-streams',
  ])('answers Accept %s as the SDK does', async (accept) => {
    for (const body of [ping, list, { jsonrpc: '2.0', method: 'notifications/initialized' }, 'not json']) {
      const { ours, sdk } = await bothReadings(body, { accept });
      expect(ours).toEqual(sdk);
    }
  });

  it.each([
    undefined,
    'application/json',
    'application/json; charset=utf-8',
    'APPLICATION/JSON',
    'application/json ; charset=utf-8',
    'application/json;',
    'application/json; charset=',
    'application/json; a="x,y"',
    'application/json; a=x,y',
    'application/json, text/plain',
    'text/plain; a=application/json',
    'application/jsonx',
    'text/plain',
    'application/x-www-form-urlencoded',
  ])('answers Content-Type %s as the SDK does', async (contentType) => {
    for (const body of [ping, 'not json']) {
      const { ours, sdk } = await bothReadings(body, { 'content-type': contentType });
      expect(ours).toEqual(sdk);
    }
  });

  it.each([
    ['no body', undefined],
    ['an empty body', ''],
    ['a body that is not JSON', '{"jsonrpc": "2.0", "id": 1, "method": "ping"'],
    ['a byte order mark before a message', `\uFEFF${JSON.stringify(ping)}`],
    ['a byte order mark before garbage', '\uFEFFnope'],
    ['null', 'null'],
    ['a number', '5'],
    ['a string', '"ping"'],
    ['an empty object', {}],
    ['a body over 4 MiB that is not JSON', `[${'x'.repeat(4 * 1024 * 1024)}`],
  ])('answers %s as the SDK does', async (_case, body) => {
    const { ours, sdk } = await bothReadings(body);
    expect(ours).toEqual(sdk);
  });

  it.each([
    ['a Content-Length over 4 MiB with a body that is not JSON', 'not json', String(4 * 1024 * 1024 + 1)],
    ['a Content-Length over 4 MiB with a message', JSON.stringify(ping), String(4 * 1024 * 1024 + 1)],
    ['a Content-Length that is not a number', 'not json', 'many'],
  ])('answers %s as the SDK does', async (_case, body, contentLength) => {
    const { ours, sdk } = await bothReadings(body, { 'content-length': contentLength });
    expect(ours).toEqual(sdk);
  });

  it.each([
    ...PROTOCOL_VERSIONS,
    '2025-11-25, 2025-06-18',
    'latest',
  ])('answers MCP-Protocol-Version %j as the SDK does', async (version) => {
    for (const body of [
      ping,
      list,
      initialize(),
      initialize({ clientInfo: {} }),
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { ...initialize(), id: undefined },
      { jsonrpc: '2.0', id: 9, result: {} },
      { jsonrpc: '2.0', id: 1, method: 'resources/list' },
    ]) {
      const { ours, sdk } = await bothReadings(body, { 'mcp-protocol-version': version });
      expect({ sent: body, ...ours }).toEqual({ sent: body, ...sdk });
    }
  });

  it('answers with a session id sent as the SDK does (stateless: ignored)', async () => {
    for (const body of [initialize(), ping, list]) {
      const { ours, sdk } = await bothReadings(body, { 'mcp-session-id': 'made-up' });
      expect(ours).toEqual(sdk);
    }
  });
});

describe('messages', () => {
  it.each([
    ['a string id', { ...ping, id: 'abc' }],
    ['an empty string id', { ...ping, id: '' }],
    ['a negative id', { ...ping, id: -7 }],
    ['a zero id', { ...ping, id: 0 }],
    ['the largest safe integer as id', { ...ping, id: 2 ** 53 - 1 }],
    ['an id past the safe integers', { ...ping, id: 2 ** 53 }],
    ['a fractional id', { ...ping, id: 1.5 }],
    ['a null id', { ...ping, id: null }],
    ['a boolean id', { ...ping, id: true }],
    ['an object id', { ...ping, id: {} }],
    ['no jsonrpc', { id: 1, method: 'ping' }],
    ['JSON-RPC 1.0', { ...ping, jsonrpc: '1.0' }],
    ['a numeric method', { ...ping, method: 5 }],
    ['an unknown member', { ...ping, extra: true }],
    ['params null', { ...ping, params: null }],
    ['params an array', { ...ping, params: [] }],
    ['params a string', { ...ping, params: 'x' }],
    ['a progress token', { ...ping, params: { _meta: { progressToken: 'p' } } }],
    ['a fractional progress token', { ...ping, params: { _meta: { progressToken: 0.5 } } }],
    ['_meta not an object', { ...ping, params: { _meta: 5 } }],
    ['a related task', { ...ping, params: { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't' } } } }],
    ['a related task without id', { ...ping, params: { _meta: { 'io.modelcontextprotocol/related-task': {} } } }],
    ['a notification', { jsonrpc: '2.0', method: 'notifications/initialized' }],
    ['a cancellation', { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 4, reason: 'x' } }],
    ['a malformed cancellation', { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1.5 } }],
    ['a progress notification', { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 2 } }],
    ['an unknown notification', { jsonrpc: '2.0', method: 'x/y' }],
    ['a notification with params an array', { jsonrpc: '2.0', method: 'notifications/initialized', params: [] }],
    ['a response', { jsonrpc: '2.0', id: 5, result: {} }],
    ['a response with _meta', { jsonrpc: '2.0', id: 5, result: { _meta: { progressToken: 1 }, x: 1 } }],
    ['a response whose result is not an object', { jsonrpc: '2.0', id: 5, result: 5 }],
    ['an error response', { jsonrpc: '2.0', id: 6, error: { code: -32601, message: 'Method not found', data: [1] } }],
    ['an error response without id', { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' } }],
    ['an error response with a null id', { jsonrpc: '2.0', id: null, error: { code: -32601, message: 'Method not found' } }],
    ['an error response with a fractional code', { jsonrpc: '2.0', id: 6, error: { code: 1.5, message: 'x' } }],
    ['a request that is also a response', { ...ping, result: {} }],
    ['a batch', [ping]],
    ['an empty batch', []],
  ])('answers %s as the SDK does', async (_case, body) => {
    const { ours, sdk } = await bothReadings(body);
    expect(ours).toEqual(sdk);
  });
});

describe('methods', () => {
  it.each<[string, unknown]>([
    ...[...PROTOCOL_VERSIONS, '2099-01-01'].map((version): [string, unknown] => [
      `initialize at ${version || 'an empty version'}`,
      initialize({ protocolVersion: version }),
    ]),
    [
      'initialize with every capability',
      initialize({
        capabilities: { sampling: { tools: {} }, elicitation: {}, roots: { listChanged: true }, tasks: {}, experimental: { a: {} } },
      }),
    ],
    ['initialize with elicitation {}', initialize({ capabilities: { elicitation: {} } })],
    ['initialize with a malformed elicitation', initialize({ capabilities: { elicitation: { form: 5, url: null } } })],
    ['initialize with icons', initialize({ clientInfo: { name: 'a', version: '1', icons: [{ src: 'x', theme: 'dim' }] } })],
    ['initialize without params', { jsonrpc: '2.0', id: 1, method: 'initialize' }],
    ['initialize with a numeric version', initialize({ protocolVersion: 20251125 })],
    ['initialize without client info', initialize({ clientInfo: undefined })],
    ['initialize asking for a task', initialize({ task: { ttl: 5 } })],
    ['initialize as a notification', { ...initialize(), id: undefined }],
    ['ping with params', { ...ping, params: { anything: [1, 2] } }],
    ['ping asking for a task', { ...ping, params: { task: {} } }],
    ['ping asking for a malformed task', { ...ping, params: { task: { ttl: 'soon' } } }],
    ['tools/list', list],
    ['tools/list with a cursor', { ...list, params: { cursor: 'c' } }],
    ['tools/list with a numeric cursor', { ...list, params: { cursor: 5 } }],
    ['tools/list asking for a task', { ...list, params: { task: { ttl: 1 } } }],
    ['tools/list asking for a null task', { ...list, params: { task: null } }],
    ['tools/call of a run a viewer may not make', call({ name: 'x_profile', arguments: { handle: 'nasa' } })],
    ['tools/call with invalid arguments', call({ name: 'x_profile', arguments: { handle: 5 } })],
    ['tools/call with an invalid max_age', call({ name: 'x_profile', arguments: { handle: 'nasa' }, _meta: { max_age: -1 } })],
    ['tools/call of get_job', call({ name: 'get_job', arguments: { job_id: 'nope' } })],
    ['tools/call of an unknown tool', call({ name: 'myspace_profile', arguments: {} })],
    ['tools/call of a long unknown tool name', call({ name: 'x'.repeat(300) })],
    ['tools/call without a name', call({ arguments: {} })],
    ['tools/call without params', { jsonrpc: '2.0', id: 3, method: 'tools/call' }],
    ['tools/call with arguments an array', call({ name: 'x_profile', arguments: [] })],
    ['tools/call asking for a task', call({ name: 'x_profile', arguments: { handle: 'nasa' }, task: { ttl: 60_000 } })],
    ['tools/call asking for a task of an unknown tool', call({ name: 'nope', task: {} })],
    ['tools/call asking for a malformed task', call({ name: 'x_profile', task: { ttl: 'x' } })],
    ...METHODS.filter((method) => !['initialize', 'ping', 'tools/list', 'tools/call'].includes(method)).map((method): [string, unknown] => [
      `${method || 'an empty method'} as a request`,
      { jsonrpc: '2.0', id: 'm', method, params: { task: { ttl: 1 } } },
    ]),
    ['logging/setLevel', { jsonrpc: '2.0', id: 1, method: 'logging/setLevel', params: { level: 'debug' } }],
    ['tasks/list', { jsonrpc: '2.0', id: 1, method: 'tasks/list' }],
    ['toString', { jsonrpc: '2.0', id: 1, method: 'toString' }],
  ])('answers %s as the SDK does', async (_case, body) => {
    const { ours, sdk } = await bothReadings(body);
    expect(ours).toEqual(sdk);
  });
});

describe('generated messages', () => {
  it('answers each as the SDK does, under generated headers', async () => {
    const headers = fc.record(
      {
        accept: fc.constantFrom(HEADERS.accept, 'application/json', '*/*'),
        'content-type': fc.constantFrom(HEADERS['content-type'], 'application/json; charset=utf-8', 'text/plain'),
        'mcp-protocol-version': fc.constantFrom(...PROTOCOL_VERSIONS),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(message, likelyRequest),
        fc.oneof({ weight: 4, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: headers }),
        async (body, sent) => {
          const { ours, sdk } = await bothReadings(body, sent);
          expect(ours).toEqual(sdk);
        },
      ),
      { seed: 20261125, numRuns: fuzzRuns(60) },
    );
  }, 120_000);
});
