/**
 * What the MCP server reads of an API Gateway event, in the Fetch API's terms (a `Headers`, the
 * URL, the body as text). The event's headers arrive lower-cased; the body may be base64.
 */
import type { HttpEvent } from './types.ts';

/** What the MCP server reads of a request, taken from the event without building a Fetch `Request`. */
export interface WebRequestParts {
  method: string;
  url: string;
  headers: Headers;
  /** The body as text (decoded when base64); undefined when there is none. */
  body: string | undefined;
}

/**
 * The event's method, headers and body, and the URL it was sent to. No `Request` is built:
 * building one, and reading its body back, cost more than the rest of a tools/list answer
 * (~0.2 ms; docs/performance.md).
 */
export function webRequestParts(event: HttpEvent, url: string): WebRequestParts {
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers ?? {})) if (value !== undefined) headers.set(name, value);
  const method = event.requestContext.http.method;
  const body =
    event.body === undefined || method === 'GET' || method === 'HEAD'
      ? undefined
      : event.isBase64Encoded
        ? Buffer.from(event.body, 'base64').toString()
        : event.body;
  return { method, url, headers, body };
}
