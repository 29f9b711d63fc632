import { gzipSync } from 'node:zlib';
import type { HttpEvent, HttpResult } from './types.ts';

/** A body that never changes for the life of the instance, kept with its gzip form. */
export interface StaticBody {
  contentType: string;
  raw: Buffer;
  gzipped: Buffer;
  cacheControl: string;
}

export function staticBody(content: string | Buffer, contentType: string, cacheControl: string): StaticBody {
  const raw = typeof content === 'string' ? Buffer.from(content) : content;
  return { contentType, raw, gzipped: gzipSync(raw), cacheControl };
}

const acceptsGzip = (event: HttpEvent) => /\bgzip\b/i.test(event.headers?.['accept-encoding'] ?? '');

/**
 * The 200 answer of a static route (the API description, the docs page and its assets):
 * gzipped for clients that accept it (Swagger UI's script is 1.7 MB, 0.5 MB gzipped), and
 * cacheable. API Gateway passes a base64 body through as bytes.
 */
export function staticReply(body: StaticBody, event: HttpEvent, headers: Record<string, string> = {}): HttpResult {
  const gzip = acceptsGzip(event);
  return {
    statusCode: 200,
    headers: {
      'Content-Type': body.contentType,
      'Cache-Control': body.cacheControl,
      Vary: 'Accept-Encoding',
      ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
      ...headers,
    },
    body: (gzip ? body.gzipped : body.raw).toString('base64'),
    isBase64Encoded: true,
  };
}
