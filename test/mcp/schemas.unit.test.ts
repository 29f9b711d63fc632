/**
 * What our MCP server copied or rebuilt of the SDK 1.32.2 (the devDependency) against the SDK
 * itself: its protocol versions, its Content-Type test, and its message and request schemas
 * (rebuilt with zod/mini: same verdict, same parsed copy, and for an invalid request the same
 * error text, which is what the client reads). Generated inputs, fixed seed.
 */
import { isJsonContentType as sdkIsJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import * as sdk from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isJsonContentType } from '../../lib/mcp/media-type.ts';
import { parseMessage, requestedTask } from '../../lib/mcp/messages.ts';
import { callToolRequest, initializeRequest, isInitializeRequest, listToolsRequest } from '../../lib/mcp/request-schemas.ts';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '../../lib/mcp/versions.ts';
import { fuzzRuns } from '../support/fuzz.ts';
import { likelyRequest, message, params } from '../support/mcp-arbitraries.ts';

const RUNS = { seed: 20261125, numRuns: fuzzRuns(150) };

describe('protocol versions', () => {
  it("are the SDK's: the same list in the same order, the same latest", () => {
    expect({ supported: SUPPORTED_PROTOCOL_VERSIONS, latest: LATEST_PROTOCOL_VERSION }).toEqual({
      supported: sdk.SUPPORTED_PROTOCOL_VERSIONS,
      latest: sdk.LATEST_PROTOCOL_VERSION,
    });
  });
});

describe('Content-Type', () => {
  it.each([
    ['application/json', true],
    ['application/json; charset=utf-8', true],
    ['Application/JSON;Charset="UTF-8"', true],
    ['application/json ; charset=utf-8', true],
    ['application/json;', true],
    ['application/json; charset=', true],
    ['application/json; a="x,y"', true],
    ['application/json; a=x,y', false],
    ['application/json, text/plain', false],
    ['application/json;, text/plain', false],
    ['text/plain; a=application/json', false],
    ['application/jsonx', false],
    ['application/json-seq', false],
    ['text/plain', false],
    ['', false],
    [null, false],
  ])('%s: %s, as the SDK judges it', (header, json) => {
    expect([isJsonContentType(header), sdkIsJsonContentType(header)]).toEqual([json, json]);
  });

  it('judges generated headers as the SDK does', () => {
    const piece = fc.constantFrom(
      'application/json',
      'APPLICATION/Json',
      'text/plain',
      ';',
      ' ',
      ',',
      '=',
      '"',
      'charset',
      'utf-8',
      '\\',
      'a',
      '\t',
      'é',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (pieces) => {
        const header = pieces.join('');
        expect(isJsonContentType(header)).toBe(sdkIsJsonContentType(header));
      }),
      RUNS,
    );
  });
});

describe('JSON-RPC messages', () => {
  /** The SDK's reading: invalid, a request (its parsed copy), a notification, or a response. */
  function sdkReading(value: unknown) {
    const parsed = sdk.JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) return undefined;
    if (sdk.isJSONRPCRequest(parsed.data)) return { kind: 'request', message: parsed.data };
    return sdk.isJSONRPCNotification(parsed.data) ? { kind: 'notification', message: parsed.data } : { kind: 'response' };
  }

  it.each([
    ['a request', { jsonrpc: '2.0', id: 1, method: 'ping' }],
    ['a notification', { jsonrpc: '2.0', method: 'notifications/initialized' }],
    ['a response', { jsonrpc: '2.0', id: 'a', result: {} }],
    ['an error response', { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } }],
    ['an error response with a null id', { jsonrpc: '2.0', id: null, error: { code: -32601, message: 'Method not found' } }],
    ['a request with a fractional id', { jsonrpc: '2.0', id: 1.5, method: 'ping' }],
    ['a request with an unknown member', { jsonrpc: '2.0', id: 1, method: 'ping', extra: true }],
    ['params that are an array', { jsonrpc: '2.0', id: 1, method: 'ping', params: [] }],
    [
      'a related task of extra fields',
      { jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't', x: 1 } } } },
    ],
  ])('reads %s as the SDK does', (_case, value) => {
    expect(parseMessage(value)).toEqual(sdkReading(value));
  });

  it('reads generated messages as the SDK does', () => {
    fc.assert(
      fc.property(fc.oneof(message, likelyRequest), (value) => {
        expect(parseMessage(value)).toEqual(sdkReading(value));
      }),
      RUNS,
    );
  });

  it('tells a task asked for as the SDK does', () => {
    fc.assert(
      fc.property(params, (value) => {
        const asked = sdk.isTaskAugmentedRequestParams(value) ? (value as { task?: unknown }).task : undefined;
        expect(requestedTask(value as Record<string, unknown>)).toEqual(asked);
      }),
      RUNS,
    );
  });
});

describe('request schemas', () => {
  const pairs = [
    ['initialize', initializeRequest(), sdk.InitializeRequestSchema],
    ['tools/list', listToolsRequest(), sdk.ListToolsRequestSchema],
    ['tools/call', callToolRequest(), sdk.CallToolRequestSchema],
  ] as const;

  /** A schema's verdict: the parsed copy, or the error text the client would read. */
  const verdict = (
    schema: { safeParse: (value: unknown) => { success: boolean; data?: unknown; error?: { message: string } } },
    value: unknown,
  ) => {
    const result = schema.safeParse(value);
    return result.success ? { data: result.data } : { error: result.error?.message };
  };

  it.each(pairs)("judges generated %s requests as the SDK's schema does, error text included", (method, ours, theirs) => {
    fc.assert(
      fc.property(params, (value) => {
        const request = { jsonrpc: '2.0', id: 1, method, params: value };
        expect(verdict(ours, request)).toEqual(verdict(theirs, request));
      }),
      RUNS,
    );
  });

  it('finds some of each: valid requests and refused ones, in every schema', () => {
    const counts = pairs.map(([method, ours]) => {
      const samples = fc.sample(params, { seed: RUNS.seed, numRuns: 500 });
      const valid = samples.filter((value) => ours.safeParse({ method, params: value }).success).length;
      return { method, valid: valid > 10, refused: valid < 490 };
    });
    expect(counts).toEqual(pairs.map(([method]) => ({ method, valid: true, refused: true })));
  });

  it('tells an initialize request (which skips the version check) as the SDK does', () => {
    fc.assert(
      fc.property(fc.oneof(message, likelyRequest), (value) => {
        const parsed = sdk.JSONRPCMessageSchema.safeParse(value);
        if (parsed.success) expect(isInitializeRequest(parsed.data)).toBe(sdk.isInitializeRequest(parsed.data));
      }),
      RUNS,
    );
  });
});
