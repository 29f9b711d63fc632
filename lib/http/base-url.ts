import type { HttpEvent } from './types.ts';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?$/;

/**
 * The API's base URL as the client called it: the host API Gateway was reached at (its own or
 * a custom domain), the scheme it forwards (without one, the local server: loopback hosts are
 * plain HTTP, anything else HTTPS), and a named stage as the first path segment (`$default`
 * has none).
 */
export function baseUrl(event: HttpEvent): string {
  const headers = event.headers ?? {};
  const host = event.requestContext.domainName || headers.host || 'localhost';
  const forwarded = headers['x-forwarded-proto']?.split(',')[0]?.trim();
  const protocol = forwarded === 'http' || forwarded === 'https' ? forwarded : LOOPBACK.test(host) ? 'http' : 'https';
  const stage = event.requestContext.stage;
  return `${protocol}://${host}${stage && stage !== '$default' ? `/${stage}` : ''}`;
}
