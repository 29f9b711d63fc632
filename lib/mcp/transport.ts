/**
 * The Streamable HTTP transport of one POST, stateless and answering JSON: the checks the MCP
 * SDK's `WebStandardStreamableHTTPServerTransport` (1.32.2, `sessionIdGenerator: undefined`,
 * `enableJsonResponse: true`) makes before a message reaches the protocol, in its order, with its
 * statuses and JSON-RPC errors. Stateless: no session is issued, and an `Mcp-Session-Id` a client
 * sends is ignored, as the SDK does. Only POST comes here (functions/mcp.ts answers 405 to the
 * rest); batches were refused before (lib/mcp/server.ts).
 */
import { classify } from './era.ts';
import { ErrorCode, errorResponse, type JsonRpcRequest } from './jsonrpc.ts';
import { isJsonContentType } from './media-type.ts';
import { parseMessage } from './messages.ts';
import { isInitializeRequest } from './request-schemas.ts';
import { isSupportedVersion, SUPPORTED_PROTOCOL_VERSIONS } from './versions.ts';

/** An HTTP answer read whole: status, headers (lower-case names) and body text (empty for none). */
export interface McpAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** The SDK transport's bound on a body it reads itself (4 MiB). */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** A refusal of the transport: a JSON-RPC error with no id, as the SDK writes it. */
export const transportError = (status: number, code: number, message: string): McpAnswer => ({
  status,
  headers: { 'content-type': 'application/json' },
  text: JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }),
});

/**
 * A JSON-RPC batch would run up to 100 tool calls on one count of the caller's rate limit. MCP
 * dropped batching in its 2025-06-18 revision and the SDK's clients never send one. Our rule, not
 * the SDK's (which runs batches): refused before anything else.
 */
export const batchRefused = (): McpAnswer =>
  transportError(400, ErrorCode.InvalidRequest, 'Invalid Request: send one JSON-RPC message per HTTP request (no batches)');

/** A notification or a client's response: accepted, no body (and so no Content-Type). */
const accepted: McpAnswer = { status: 202, headers: {}, text: '' };

/** The request body as the SDK reads one it was not handed parsed: a leading byte order mark dropped. */
export function reparsedBody(body: string | undefined): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(new TextDecoder().decode(new TextEncoder().encode(body ?? ''))) };
  } catch {
    return undefined;
  }
}

/**
 * What the transport makes of a POST: its own answer (a refusal, or 202), or the JSON-RPC request
 * the protocol must answer. `message` is the body already parsed as JSON, undefined when it was
 * not JSON (or absent): the SDK then reads the body itself, bounded, and answers its parse error.
 */
export function receive(
  headers: Headers,
  body: string | undefined,
  message: unknown,
): { answer: McpAnswer } | { request: JsonRpcRequest } | { modern: JsonRpcRequest; capabilities: Record<string, unknown> } {
  // Accept is a list: the SDK looks for both substrings (Content-Type, below, is parsed).
  const accept = headers.get('accept');
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
    return {
      answer: transportError(
        406,
        ErrorCode.TransportError,
        'Not Acceptable: Client must accept both application/json and text/event-stream',
      ),
    };
  }
  if (!isJsonContentType(headers.get('content-type'))) {
    return { answer: transportError(415, ErrorCode.TransportError, 'Unsupported Media Type: Content-Type must be application/json') };
  }
  let raw = message;
  if (raw === undefined) {
    if (Number(headers.get('content-length')) > MAX_BODY_BYTES || Buffer.byteLength(body ?? '') > MAX_BODY_BYTES) {
      const tooLarge = `Payload Too Large: Request body must not exceed ${MAX_BODY_BYTES} bytes`;
      return { answer: transportError(413, ErrorCode.TransportError, tooLarge) };
    }
    const reparsed = reparsedBody(body);
    if (!reparsed) return { answer: transportError(400, ErrorCode.ParseError, 'Parse error: Invalid JSON') };
    // A batch behind a byte order mark is still a batch.
    if (Array.isArray(reparsed.value)) return { answer: batchRefused() };
    raw = reparsed.value;
  }
  const parsed = parseMessage(raw);
  if (!parsed) return { answer: transportError(400, ErrorCode.ParseError, 'Parse error: Invalid JSON-RPC message') };
  // Which revision speaks (lib/mcp/era.ts): a 2026-07-28 request, checked, goes to lib/mcp/modern.ts.
  const era = classify(parsed, headers);
  if (era.era === 'refused') {
    return {
      answer: {
        status: era.refusal.status,
        headers: { 'content-type': 'application/json' },
        text: errorResponse(era.id, era.refusal.error),
      },
    };
  }
  if (era.era === 'modern-notification') return { answer: accepted };
  if (era.era === 'modern') return { modern: era.request, capabilities: era.capabilities };
  // The version a client sends after initialize must be one this server speaks; initialize itself negotiates.
  const version = headers.get('mcp-protocol-version');
  if (version !== null && !isSupportedVersion(version) && !(parsed.kind !== 'response' && isInitializeRequest(parsed.message))) {
    const supported = SUPPORTED_PROTOCOL_VERSIONS.join(', ');
    const unsupported = `Bad Request: Unsupported protocol version: ${version} (supported versions: ${supported})`;
    return { answer: transportError(400, ErrorCode.TransportError, unsupported) };
  }
  return parsed.kind === 'request' ? { request: parsed.message } : { answer: accepted };
}
