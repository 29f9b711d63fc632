/**
 * tools/list and tools/call of our MCP server (lib/mcp/server.ts) against the SDK's server and
 * transport it replaced (test/support/mcp-sdk-oracle.ts), byte for byte: for every set of enabled
 * networks, a refused listing, runs and their refusals, and requests the protocol refuses.
 * test/mcp/sdk-parity.test.ts covers every other branch of the protocol.
 */
import { randomUUID } from 'node:crypto';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { getOrganization, setNetworks } from '../../lib/db/organizations.ts';
import type { WebRequestParts } from '../../lib/http/web-request.ts';
import { serveMcp } from '../../lib/mcp/server.ts';
import { NETWORKS, type Network } from '../../lib/model.ts';
import { cellsAtDepth } from '../support/depth.ts';
import { TEST_OPERATOR, workspace } from '../support/fixtures.ts';
import { serveWithSdk } from '../support/mcp-sdk-oracle.ts';

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** A POST of `body`. */
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
  requestId: 'req-parity',
  baseUrl: 'https://api.test',
});

/**
 * One request answered by `serveMcp` and by the SDK. A run changes its organization, so the SDK
 * may be asked on a twin (`sdkOrg`).
 */
async function bothAnswers(
  orgId: string,
  userId: string,
  body: unknown,
  headers: Record<string, string> = {},
  sdkOrg: { orgId: string; userId: string } = { orgId, userId },
) {
  const served = await serveMcp(request(orgId, body, headers), scopeOf(orgId, userId));
  const sdk = await serveWithSdk(request(sdkOrg.orgId, body, headers), scopeOf(sdkOrg.orgId, sdkOrg.userId));
  return { served, sdk };
}

/** A tools/call asked of two identical workspaces, one of `serveMcp`, the other of the SDK. */
async function bothCallAnswers(options: Parameters<typeof workspace>[0], role: 'editor' | 'viewer', params: unknown) {
  const [ours, twin] = await Promise.all([workspace(options), workspace(options)]);
  const answers = await bothAnswers(
    ours.orgId,
    ours.users[role],
    { jsonrpc: '2.0', id: 9, method: 'tools/call', params },
    {},
    {
      orgId: twin.orgId,
      userId: twin.users[role],
    },
  );
  const credits = await Promise.all([ours.orgId, twin.orgId].map(async (orgId) => (await getOrganization(orgId))!.credits));
  // An answer may name its organization (a refusal's billing_url): the twin's read as ours.
  const sdk = { ...answers.sdk, text: answers.sdk.text.replaceAll(twin.orgId, ours.orgId) };
  return { ...answers, sdk, credits, orgId: ours.orgId };
}

/** One workspace with a viewer, for the cases that need no network set of their own. */
const viewerWorkspace = workspace({ roles: ['viewer'] });

const subsets = (networks: readonly Network[]): Network[][] =>
  Array.from({ length: 2 ** networks.length }, (_, mask) => networks.filter((_, bit) => mask & (1 << bit)));

/**
 * Every set of enabled networks under `npm run test:long`; everyday, none, all, and every set of
 * four (each network on in some and off in others, each pair of networks on together in some):
 * 37 of 128 (test/support/depth.ts).
 */
const enabledSets = cellsAtDepth(subsets(NETWORKS), (set) => set.length === 0 || set.length === 4 || set.length === NETWORKS.length);

describe('tools/list', () => {
  it(`answers ${enabledSets.length} sets of enabled networks with the bytes the SDK writes`, async () => {
    const sets = enabledSets;
    // 8 workspaces, each taking its share of the sets in turn (setting its networks is one write,
    // creating a workspace two and far slower on DynamoDB Local).
    const lanes = await Promise.all(Array.from({ length: 8 }, () => workspace({ roles: ['viewer'] })));
    const answers = (
      await Promise.all(
        lanes.map(async ({ orgId, users }, lane) => {
          const laneAnswers = [];
          for (let i = lane; i < sets.length; i += lanes.length) {
            const networks = sets[i]!;
            await setNetworks(orgId, networks, TEST_OPERATOR);
            // Numeric and string ids alike.
            const id = i % 2 ? i : `list-${i}`;
            laneAnswers.push({ networks, ...(await bothAnswers(orgId, users.viewer, { jsonrpc: '2.0', id, method: 'tools/list' })) });
          }
          return laneAnswers;
        }),
      )
    ).flat();

    expect(answers).toHaveLength(sets.length);
    for (const { networks, served, sdk } of answers) {
      expect({ networks, ...served }).toEqual({ networks, ...sdk });
    }
    // Each set of networks has a listing of its own: the cache is keyed by what it lists.
    const results = answers.map(({ served }) => served.text.slice(0, served.text.lastIndexOf(',"jsonrpc"')));
    expect(new Set(results).size).toBe(sets.length);
  });

  it('answers a non-member with the JSON-RPC error the SDK writes', async () => {
    const { orgId } = await workspace();

    const { served, sdk } = await bothAnswers(orgId, 'someone-else', { jsonrpc: '2.0', id: 7, method: 'tools/list' });

    expect(served).toEqual(sdk);
    expect(JSON.parse(served.text)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32600,
        message: 'forbidden: you are not a member of this organization',
        data: { code: 'forbidden', message: 'you are not a member of this organization', request_id: 'req-parity' },
      },
    });
  });

  it.each([
    // Listings.
    ['a cursor', { params: { cursor: 'next' } }, {}, 200],
    ['_meta', { params: { _meta: { progressToken: 'p1' } } }, {}, 200],
    ['a supported MCP-Protocol-Version', {}, { 'mcp-protocol-version': LATEST_PROTOCOL_VERSION }, 200],
    ['more media types in Accept', {}, { accept: 'text/event-stream;q=0.9, application/json, */*' }, 200],
    ['a charset in Content-Type', {}, { 'content-type': 'application/json; charset=utf-8' }, 200],
    // Refusals of the transport and of the protocol.
    ['Accept without SSE', {}, { accept: 'application/json' }, 406],
    ['Accept without JSON', {}, { accept: 'text/event-stream' }, 406],
    ['a Content-Type that is not JSON', {}, { 'content-type': 'text/plain' }, 415],
    ['an unsupported MCP-Protocol-Version', {}, { 'mcp-protocol-version': '1999-01-01' }, 400],
    ['a cursor that is not a string', { params: { cursor: 5 } }, {}, 200],
    ['a task asked for', { params: { task: { ttl: 1000 } } }, {}, 200],
    ['a null id', { id: null }, {}, 400],
    ['another JSON-RPC version', { jsonrpc: '1.0' }, {}, 400],
  ])('answers a listing with %s as the SDK does', async (_case, extra, headers, status) => {
    const { orgId, users } = await viewerWorkspace;

    const { served, sdk } = await bothAnswers(orgId, users.viewer, { jsonrpc: '2.0', id: 1, method: 'tools/list', ...extra }, headers);

    expect(served.status).toBe(status);
    expect(served).toEqual(sdk);
  });

  it('answers a body that is not JSON with the parse error the SDK writes', async () => {
    const { orgId, users } = await viewerWorkspace;

    const { served, sdk } = await bothAnswers(orgId, users.viewer, '{"jsonrpc": "2.0", "id": 1, "method": "tools/list"');

    expect(served).toEqual(sdk);
    expect(JSON.parse(served.text)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: Invalid JSON' } });
  });

  it('answers ping as the SDK does', async () => {
    const { orgId, users } = await viewerWorkspace;

    const { served, sdk } = await bothAnswers(orgId, users.viewer, { jsonrpc: '2.0', id: 3, method: 'ping' });

    expect(served).toEqual(sdk);
    expect(JSON.parse(served.text)).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
  });
});

describe('tools/call', () => {
  it('answers a run with the bytes the SDK writes (result, structured content, credits), charging once', async () => {
    const { served, sdk, credits } = await bothCallAnswers({ credits: 5 }, 'editor', {
      name: 'x_profile',
      arguments: { handle: '@nasa' },
    });

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
    const { served, sdk, credits, orgId } = await bothCallAnswers(options, role, params);

    expect(served).toEqual(sdk);
    const { result } = JSON.parse(served.text);
    expect({ isError: result.isError, code: JSON.parse(result.content[0].text).code }).toEqual({ isError: true, code });
    // Out of credits, and only then: where an owner buys them, in the text and in `_meta`.
    const billingUrl = code === 'insufficient_credits' ? `https://api.test/console?organization_id=${orgId}#billing` : undefined;
    expect(JSON.parse(result.content[0].text).data?.billing_url).toBe(billingUrl);
    expect(result._meta?.billing_url).toBe(billingUrl);
    expect(credits).toEqual([options.credits, options.credits]);
  });

  it('answers an unknown tool with the JSON-RPC error the SDK writes', async () => {
    const { served, sdk } = await bothCallAnswers({ credits: 5 }, 'editor', { name: 'myspace_profile', arguments: {} });

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
  ])('answers a call with %s as the SDK does, charging nothing', async (_case, params) => {
    const { served, sdk, credits } = await bothCallAnswers({ credits: 5 }, 'editor', params);

    expect(served).toEqual(sdk);
    expect(JSON.parse(served.text).error).toEqual(expect.objectContaining({ code: expect.any(Number) }));
    expect(credits).toEqual([5, 5]);
  });
});
