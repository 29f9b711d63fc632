/**
 * API Gateway events ↔ web-standard Request and Response, for libraries that speak the Fetch
 * API (the MCP SDK's transport). The event's headers arrive lower-cased; the body may be base64.
 */
import type { HttpEvent } from './types.ts';

export function toWebRequest(event: HttpEvent, url: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers ?? {})) if (value !== undefined) headers.set(name, value);
  const method = event.requestContext.http.method;
  const body =
    event.body === undefined || method === 'GET' || method === 'HEAD'
      ? undefined
      : event.isBase64Encoded
        ? Buffer.from(event.body, 'base64')
        : event.body;
  return new Request(url, { method, headers, ...(body === undefined ? {} : { body }) });
}

/** A Response read whole: its status, its headers and its body as text (empty when it has none). */
export async function readWebResponse(response: Response): Promise<{ status: number; headers: Record<string, string>; text: string }> {
  return { status: response.status, headers: Object.fromEntries(response.headers.entries()), text: await response.text() };
}
