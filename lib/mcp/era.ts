/**
 * Two eras on one endpoint (docs/mcp.md, "Two revisions"): which revision a POST speaks, decided
 * per request as `@modelcontextprotocol/server` 2.4.0 decides it (its `classifyInboundRequest`),
 * and the checks a 2026-07-28 ("modern") request passes before a method runs, in the order
 * DESIGN.md gives them. Written here rather than imported: the SDK's classifier alone brings
 * 398 KB minified (108 KB gzipped) of classic zod and schemas into the bundle (docs/mcp.md has
 * the measurement).
 *
 * - `params._meta["io.modelcontextprotocol/protocolVersion"]` present: modern.
 * - `initialize` without that claim: the legacy handshake (with a modern `MCP-Protocol-Version`
 *   header: 400 -32020).
 * - Anything else without it: legacy, unless the header names the modern revision (400 -32602).
 */
import { ErrorCode, type JsonRpcRequest, type RequestId } from './jsonrpc.ts';
import type { Message } from './messages.ts';

export const MODERN_VERSION = '2026-07-28';

export const META_KEYS = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
} as const;

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The codes the 2026-07-28 revision adds, and ours for a refusal of the service (-32010). */
export const ModernErrorCode = {
  ServiceRefusal: -32010,
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
} as const;

/** The methods a modern request may name: anything else is 404 -32601. */
export const MODERN_METHODS = ['server/discover', 'tools/list', 'tools/call', 'tasks/get', 'tasks/update', 'tasks/cancel'] as const;

/** Which body field `Mcp-Name` mirrors, per method (no other method needs it). */
const NAME_SOURCE: Record<string, 'name' | 'taskId'> = {
  'tools/call': 'name',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** A refusal before any method runs: its HTTP status and JSON-RPC error. */
export interface Refusal {
  status: number;
  error: { code: number; message: string; data?: unknown };
}

export type Era =
  | { era: 'legacy' }
  | { era: 'modern-notification' }
  | { era: 'modern'; request: JsonRpcRequest; capabilities: Record<string, unknown> }
  | { era: 'refused'; id: RequestId; refusal: Refusal };

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const metaOf = (params: unknown): Record<string, unknown> | undefined => {
  const meta = isPlainObject(params) ? params._meta : undefined;
  return isPlainObject(meta) ? meta : undefined;
};

/** RFC 9110 optional whitespace (spaces, tabs) around a field value. */
const trimmed = (value: string | null): string | undefined => (value === null ? undefined : value.replace(/^[ \t]+|[ \t]+$/g, ''));

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A header value as the client meant it: `=?base64?…?=` decoded (UTF-8); undefined when that encoding is broken. */
export function decodedHeader(value: string): string | undefined {
  if (!(value.startsWith('=?base64?') && value.endsWith('?='))) return value;
  const payload = value.slice(9, -2);
  if (!BASE64.test(payload)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(payload, 'base64'));
  } catch {
    return undefined;
  }
}

const refused = (id: RequestId, status: number, code: number, message: string, data?: unknown): Era => ({
  era: 'refused',
  id,
  refusal: { status, error: { code, message, ...(data !== undefined && { data }) } },
});

const mismatch = (id: RequestId, header: string, body: string): Era =>
  refused(id, 400, ModernErrorCode.HeaderMismatch, `Bad Request: the request headers and body disagree: ${body}`, {
    mismatch: { header, body },
  });

/** The first problem of a modern envelope, as the SDK names it (key, problem), or undefined when it is valid. */
function envelopeProblem(meta: Record<string, unknown>): { key: string; problem: string } | undefined {
  for (const key of [META_KEYS.protocolVersion, META_KEYS.clientCapabilities]) {
    if (!(key in meta)) return { key, problem: 'missing' };
  }
  if (typeof meta[META_KEYS.protocolVersion] !== 'string') return { key: META_KEYS.protocolVersion, problem: 'expected a string' };
  if (!isPlainObject(meta[META_KEYS.clientCapabilities])) return { key: META_KEYS.clientCapabilities, problem: 'expected an object' };
  const info = meta[META_KEYS.clientInfo];
  if (info !== undefined && !(isPlainObject(info) && typeof info.name === 'string' && typeof info.version === 'string')) {
    return { key: META_KEYS.clientInfo, problem: 'expected an object with name and version strings' };
  }
  return undefined;
}

/** The era of a valid JSON-RPC message, or the refusal of a modern request, checked in DESIGN.md's order. */
export function classify(parsed: Message, headers: Headers): Era {
  if (parsed.kind === 'response') return { era: 'legacy' };
  const versionHeader = trimmed(headers.get('mcp-protocol-version'));
  // Exactly the new revision: any other unknown value is the legacy transport's 400, as today.
  const headerNamesModern = versionHeader === MODERN_VERSION;
  const meta = metaOf((parsed.message as { params?: unknown }).params);
  const claimed = meta !== undefined && META_KEYS.protocolVersion in meta;
  // A notification of either revision is accepted (202): nothing answers it.
  if (parsed.kind === 'notification') return claimed || headerNamesModern ? { era: 'modern-notification' } : { era: 'legacy' };
  const request = parsed.message;
  const { id } = request;

  if (!claimed) {
    if (request.method === 'initialize') {
      return headerNamesModern
        ? mismatch(id, versionHeader, 'an initialize request (legacy handshake) was sent with a modern MCP-Protocol-Version header')
        : { era: 'legacy' };
    }
    if (!headerNamesModern) return { era: 'legacy' };
    const missing = meta === undefined ? ['_meta'] : [META_KEYS.protocolVersion];
    return refused(
      id,
      400,
      ErrorCode.InvalidParams,
      `Invalid params: the MCP-Protocol-Version header names protocol revision ${versionHeader}, but the request is missing the required per-request envelope key(s): ${missing.join(', ')}`,
      { envelope: { missing } },
    );
  }
  const problem = envelopeProblem(meta);
  if (problem) {
    return refused(
      id,
      400,
      ErrorCode.InvalidParams,
      `Invalid _meta envelope for protocol revision ${MODERN_VERSION}: ${problem.key}: ${problem.problem}`,
      { envelope: problem },
    );
  }
  const claim = meta[META_KEYS.protocolVersion] as string;
  if (versionHeader === undefined) {
    return mismatch(
      id,
      '(missing)',
      `the body envelope names protocol version ${claim} but the required MCP-Protocol-Version header is absent`,
    );
  }
  if (versionHeader !== claim) {
    return mismatch(
      id,
      versionHeader,
      `the body envelope names protocol version ${claim} but the MCP-Protocol-Version header names ${versionHeader}`,
    );
  }
  if (claim !== MODERN_VERSION) {
    return refused(
      id,
      400,
      ModernErrorCode.UnsupportedProtocolVersion,
      `Unsupported protocol version: ${claim} (this server speaks ${MODERN_VERSION} per request; 2025-11-25 and earlier begin with initialize)`,
      { supported: [MODERN_VERSION], requested: claim },
    );
  }
  const methodHeader = trimmed(headers.get('mcp-method'));
  if (methodHeader === undefined) {
    return mismatch(id, '(missing)', `the body names method ${request.method} but the required Mcp-Method header is absent`);
  }
  const method = decodedHeader(methodHeader);
  if (method !== request.method) {
    return mismatch(id, methodHeader, `the body names method ${request.method} but the Mcp-Method header names ${method ?? methodHeader}`);
  }
  const field = Object.hasOwn(NAME_SOURCE, request.method) ? NAME_SOURCE[request.method] : undefined;
  const bodyValue = field === undefined ? undefined : request.params?.[field];
  // A field that is absent or not a string is the params' problem (-32602 from the method), not the header's.
  if (field !== undefined && typeof bodyValue === 'string') {
    const nameHeader = trimmed(headers.get('mcp-name'));
    if (nameHeader === undefined) {
      return mismatch(id, '(missing)', `the body carries params.${field}="${bodyValue}" but the required Mcp-Name header is absent`);
    }
    const name = decodedHeader(nameHeader);
    if (name === undefined) return mismatch(id, nameHeader, 'the Mcp-Name header carries an invalid Base64 sentinel value');
    if (name !== bodyValue) {
      return mismatch(id, nameHeader, `the body carries params.${field}="${bodyValue}" but the Mcp-Name header names "${name}"`);
    }
  }
  if (!(MODERN_METHODS as readonly string[]).includes(request.method)) {
    return refused(id, 404, ErrorCode.MethodNotFound, 'Method not found');
  }
  return { era: 'modern', request, capabilities: meta[META_KEYS.clientCapabilities] as Record<string, unknown> };
}

/** Whether the request's client capabilities name the tasks extension. */
export const declaresTasks = (capabilities: Record<string, unknown>): boolean => {
  const extensions = capabilities.extensions;
  return isPlainObject(extensions) && isPlainObject(extensions[TASKS_EXTENSION]);
};
