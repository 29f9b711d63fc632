/**
 * The fast path of tools/list and tools/call (lib/mcp/fast-path.ts) against the SDK's server and
 * transport, which it stands in for: for every set of enabled networks, a refused listing, runs
 * and their refusals, and the requests it must leave to the SDK, the answer of `serveMcp` is byte
 * for byte the SDK's.
 */
import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { getOrganization, setNetworks } from '../../lib/db/organizations.ts';
import { readWebResponse, toWebRequest, type WebRequestParts } from '../../lib/http/web-request.ts';
import { serveMcp, serveWithSdk } from '../../lib/mcp/server.ts';
import { NETWORKS, type Network } from '../../lib/model.ts';
import { workspace } from '../support/fixtures.ts';

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** A POST of `body`, at a URL of its own (which tells its path through the SDK from any other request's). */
const request = (orgId: string, body: unknown, headers: Record<string, string> = {}): WebRequestParts => ({
  method: 'POST',
  url: `https://api.test/mcp?organization_id=${orgId}&probe=${randomUUID()}`,
  headers: new Headers({ ...HEADERS, ...headers }),
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

const scopeOf = (orgId: string, userId: string) => ({
  caller: { userId },
  orgId,
  deadlineMs: Date.now() + 30_000,
  requestId: 'req-fast-path',
});

/** Every request the SDK's transport handled, to tell which path answered (requests run concurrently). */
const sdkHandled = vi.spyOn(WebStandardStreamableHTTPServerTransport.prototype, 'handleRequest');
afterAll(() => sdkHandled.mockRestore());

/** What the SDK is handed as already parsed: nothing for a body that is not JSON (it reads the body itself). */
function parsed(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/**
 * One request answered by `serveMcp` and by the SDK alone, and whether `serveMcp` went through
 * the SDK. A run changes its organization, so the SDK may be asked on a twin (`sdkOrg`).
 */
async function bothAnswers(
  orgId: string,
  userId: string,
  body: unknown,
  headers: Record<string, string> = {},
  sdkOrg: { orgId: string; userId: string } = { orgId, userId },
) {
  const asked = request(orgId, body, headers);
  const served = await serveMcp(asked, scopeOf(orgId, userId));
  const viaSdk = sdkHandled.mock.calls.some(([handled]) => handled.url === asked.url);
  const sdkRequest = toWebRequest(request(sdkOrg.orgId, body, headers));
  const sdk = await readWebResponse(await serveWithSdk(sdkRequest, parsed(body), scopeOf(sdkOrg.orgId, sdkOrg.userId)));
  return { served, sdk: { status: sdk.status, headers: { 'content-type': sdk.headers['content-type']! }, text: sdk.text }, viaSdk };
}

/** A tools/call asked of two identical workspaces, one through `serveMcp`, the other through the SDK alone. */
async function bothCallAnswers(options: Parameters<typeof workspace>[0], role: 'editor' | 'viewer', params: unknown) {
  const [fast, twin] = await Promise.all([workspace(options), workspace(options)]);
  const answers = await bothAnswers(
    fast.orgId,
    fast.users[role],
    { jsonrpc: '2.0', id: 9, method: 'tools/call', params },
    {},
    {
      orgId: twin.orgId,
      userId: twin.users[role],
    },
  );
  const credits = await Promise.all([fast.orgId, twin.orgId].map(async (orgId) => (await getOrganization(orgId))!.credits));
  return { ...answers, credits };
}

/** One workspace with a viewer, for the cases that need no network set of their own. */
const viewerWorkspace = workspace({ roles: ['viewer'] });

const subsets = (networks: readonly Network[]): Network[][] =>
  Array.from({ length: 2 ** networks.length }, (_, mask) => networks.filter((_, bit) => mask & (1 << bit)));

describe('tools/list without the SDK', () => {
  it('answers every set of enabled networks with the bytes the SDK writes', async () => {
    const sets = subsets(NETWORKS);
    // 8 workspaces, each taking its share of the sets in turn (setting its networks is one write,
    // creating a workspace two and far slower on DynamoDB Local).
    const lanes = await Promise.all(Array.from({ length: 8 }, () => workspace({ roles: ['viewer'] })));
    const answers = (
      await Promise.all(
        lanes.map(async ({ orgId, users }, lane) => {
          const laneAnswers = [];
          for (let i = lane; i < sets.length; i += lanes.length) {
            const networks = sets[i]!;
            await setNetworks(orgId, networks);
            // Numeric and string ids alike.
            const id = i % 2 ? i : `list-${i}`;
            laneAnswers.push({ networks, ...(await bothAnswers(orgId, users.viewer, { jsonrpc: '2.0', id, method: 'tools/list' })) });
          }
          return laneAnswers;
        }),
      )
    ).flat();

    expect(answers).toHaveLength(128);
    for (const { networks, served, sdk, viaSdk } of answers) {
      expect({ networks, viaSdk, ...served }).toEqual({ networks, viaSdk: false, ...sdk });
    }
    // Each set of networks has a listing of its own: the cache is keyed by what it lists.
    const results = answers.map(({ served }) => served.text.slice(0, served.text.lastIndexOf(',"jsonrpc"')));
    expect(new Set(results).size).toBe(128);
  });

  it('answers a non-member with the JSON-RPC error the SDK writes', async () => {
    const { orgId } = await workspace();

    const { served, sdk, viaSdk } = await bothAnswers(orgId, 'someone-else', { jsonrpc: '2.0', id: 7, method: 'tools/list' });

    expect(viaSdk).toBe(false);
    expect(served).toEqual(sdk);
    expect(JSON.parse(served.text)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32600,
        message: 'forbidden: you are not a member of this organization',
        data: { code: 'forbidden', message: 'you are not a member of this organization', request_id: 'req-fast-path' },
      },
    });
  });

  it.each([
    // Listings the SDK would answer with the listing: answered here.
    ['a cursor', 'fast path', { params: { cursor: 'next' } }, {}, 200],
    ['_meta', 'fast path', { params: { _meta: { progressToken: 'p1' } } }, {}, 200],
    ['a supported MCP-Protocol-Version', 'fast path', {}, { 'mcp-protocol-version': LATEST_PROTOCOL_VERSION }, 200],
    ['more media types in Accept', 'fast path', {}, { accept: 'text/event-stream;q=0.9, application/json, */*' }, 200],
    ['a charset in Content-Type', 'fast path', {}, { 'content-type': 'application/json; charset=utf-8' }, 200],
    // Anything else: the SDK's own answer.
    ['Accept without SSE', 'through the SDK', {}, { accept: 'application/json' }, 406],
    ['Accept without JSON', 'through the SDK', {}, { accept: 'text/event-stream' }, 406],
    ['a Content-Type that is not JSON', 'through the SDK', {}, { 'content-type': 'text/plain' }, 415],
    ['an unsupported MCP-Protocol-Version', 'through the SDK', {}, { 'mcp-protocol-version': '1999-01-01' }, 400],
    ['a cursor that is not a string', 'through the SDK', { params: { cursor: 5 } }, {}, 200],
    ['a task asked for', 'through the SDK', { params: { task: { ttl: 1000 } } }, {}, 200],
    ['a null id', 'through the SDK', { id: null }, {}, 400],
    ['another JSON-RPC version', 'through the SDK', { jsonrpc: '1.0' }, {}, 400],
  ])('answers a listing with %s as the SDK does (%s)', async (_case, path, extra, headers, status) => {
    const { orgId, users } = await viewerWorkspace;

    const { served, sdk, viaSdk } = await bothAnswers(
      orgId,
      users.viewer,
      { jsonrpc: '2.0', id: 1, method: 'tools/list', ...extra },
      headers,
    );

    expect({ viaSdk, status: served.status }).toEqual({ viaSdk: path === 'through the SDK', status });
    expect(served).toEqual(sdk);
  });

  it('leaves a body that is not JSON to the SDK, which reads it and answers its parse error', async () => {
    const { orgId, users } = await viewerWorkspace;

    const { served, sdk, viaSdk } = await bothAnswers(orgId, users.viewer, '{"jsonrpc": "2.0", "id": 1, "method": "tools/list"');

    expect(viaSdk).toBe(true);
    expect(served).toEqual(sdk);
    expect(JSON.parse(served.text)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: Invalid JSON' } });
  });

  it('leaves every other method to the SDK', async () => {
    const { orgId, users } = await viewerWorkspace;

    const { served, sdk, viaSdk } = await bothAnswers(orgId, users.viewer, { jsonrpc: '2.0', id: 3, method: 'ping' });

    expect(viaSdk).toBe(true);
    expect(served).toEqual(sdk);
    expect(JSON.parse(served.text)).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
  });
});

describe('tools/call without the SDK', () => {
  it('answers a run with the bytes the SDK writes (result, structured content, credits), charging once', async () => {
    const { served, sdk, viaSdk, credits } = await bothCallAnswers({ credits: 5 }, 'editor', {
      name: 'x_profile',
      arguments: { handle: '@nasa' },
    });

    expect(viaSdk).toBe(false);
    // Byte for byte but the charge id, which is each run's own.
    const sameCharge = (answer: typeof served) => ({ ...answer, text: answer.text.replace(/evt_[0-9a-f-]{36}/, 'evt_…') });
    expect(sameCharge(served)).toEqual(sameCharge(sdk));
    expect(JSON.parse(served.text)).toMatchObject({
      result: {
        _meta: { credits_charged: 1, credits_remaining: 4, charge_id: expect.stringMatching(/^evt_/) },
        structuredContent: { network: 'x' },
      },
      jsonrpc: '2.0',
      id: 9,
    });
    expect(credits).toEqual([4, 4]);
  });

  it.each<[string, { credits: number; networks?: Network[] }, 'editor' | 'viewer', unknown, string]>([
    ['no credits', { credits: 0 }, 'editor', { name: 'x_profile', arguments: { handle: 'nasa' } }, 'insufficient_credits'],
    ["a viewer's run", { credits: 5 }, 'viewer', { name: 'x_profile', arguments: { handle: 'nasa' } }, 'forbidden'],
    ['invalid arguments', { credits: 5 }, 'editor', { name: 'x_profile', arguments: {} }, 'validation_failed'],
    ['no arguments', { credits: 5 }, 'editor', { name: 'x_profile' }, 'validation_failed'],
    [
      'a network turned off',
      { credits: 5, networks: ['reddit'] },
      'editor',
      { name: 'x_profile', arguments: { handle: 'nasa' } },
      'operation_not_enabled',
    ],
  ])('answers a refused run (%s) with the bytes the SDK writes, charging nothing', async (_case, options, role, params, code) => {
    const { served, sdk, viaSdk, credits } = await bothCallAnswers(options, role, params);

    expect(viaSdk).toBe(false);
    expect(served).toEqual(sdk);
    const { result } = JSON.parse(served.text);
    expect({ isError: result.isError, code: JSON.parse(result.content[0].text).code }).toEqual({ isError: true, code });
    expect(credits).toEqual([options.credits, options.credits]);
  });

  it('answers an unknown tool with the JSON-RPC error the SDK writes', async () => {
    const { served, sdk, viaSdk } = await bothCallAnswers({ credits: 5 }, 'editor', { name: 'myspace_profile', arguments: {} });

    expect(viaSdk).toBe(false);
    expect(served).toEqual(sdk);
    expect(JSON.parse(served.text)).toEqual({
      jsonrpc: '2.0',
      id: 9,
      error: { code: -32602, message: 'Unknown tool: myspace_profile' },
    });
  });

  it.each([
    ['arguments that are not an object', { name: 'x_profile', arguments: 5 }],
    ['no tool name', { arguments: { handle: 'nasa' } }],
    ['a task asked for', { name: 'x_profile', arguments: { handle: 'nasa' }, task: { ttl: 1000 } }],
  ])('leaves a call with %s to the SDK, whose answer it is, charging nothing', async (_case, params) => {
    const { served, sdk, viaSdk, credits } = await bothCallAnswers({ credits: 5 }, 'editor', params);

    expect(viaSdk).toBe(true);
    expect(served).toEqual(sdk);
    expect(JSON.parse(served.text).error).toEqual(expect.objectContaining({ code: expect.any(Number) }));
    expect(credits).toEqual([5, 5]);
  });
});
