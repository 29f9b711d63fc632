/**
 * API Gateway events ↔ web-standard Request and Response, for libraries that speak the Fetch
 * API (the MCP SDK's transport). The event's headers arrive lower-cased; the body may be base64.
 */
import type { HttpEvent } from './types.ts';

/** What a Fetch API library reads of a request, taken from the event without building a Request. */
export interface WebRequestParts {
  method: string;
  url: string;
  headers: Headers;
  /** The body as text (decoded when base64); undefined when there is none. */
  body: string | undefined;
}

/**
 * The event's method, headers and body, and the URL it was sent to. A Request is built from these
 * only when one is needed (`toWebRequest`): building it, and reading its body back, cost more
 * than the rest of a tools/list answer (~0.2 ms; docs/performance.md).
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

/** The Request of those parts; without its body when the reader will not read it (`withBody` false). */
export const toWebRequest = ({ method, url, headers, body }: WebRequestParts, withBody = true): Request =>
  new Request(url, { method, headers, ...(withBody && body !== undefined ? { body } : {}) });

/** A Response read whole: its status, its headers and its body as text (empty when it has none). */
export async function readWebResponse(response: Response): Promise<{ status: number; headers: Record<string, string>; text: string }> {
  return { status: response.status, headers: Object.fromEntries(response.headers.entries()), text: await response.text() };
}
