/**
 * Where the MCP server and its protected resource metadata (RFC 9728) live, as URLs a client
 * can follow: built from the request itself (its host and stage), so that one deployment
 * answers correctly behind its execute-api host, a custom domain or the local server.
 */
import type { HttpEvent } from '../http/types.ts';

export const MCP_PATH = '/mcp';
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

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

export const resourceMetadataUrl = (event: HttpEvent): string => `${baseUrl(event)}${RESOURCE_METADATA_PATH}`;

/** RFC 9728 §2: the MCP endpoint is the protected resource; the JWT issuer is its authorization server. */
export function protectedResourceMetadata(event: HttpEvent, issuer: string) {
  return {
    resource: `${baseUrl(event)}${MCP_PATH}`,
    authorization_servers: [issuer],
    bearer_methods_supported: ['header'],
    resource_name: 'Workspace Service',
  };
}
