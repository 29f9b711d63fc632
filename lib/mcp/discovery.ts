/**
 * Where the MCP server and its protected resource metadata (RFC 9728) live, as URLs a client
 * can follow: built from the request itself (its host and stage), so that one deployment
 * answers correctly behind its execute-api host, a custom domain or the local server.
 */
import { baseUrl } from '../http/base-url.ts';
import type { HttpEvent } from '../http/types.ts';

export { baseUrl };

export const MCP_PATH = '/mcp';
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

export const resourceMetadataUrl = (event: HttpEvent): string => `${baseUrl(event)}${RESOURCE_METADATA_PATH}`;

/**
 * RFC 9728 §2: the MCP endpoint is the protected resource, and this service its authorization
 * server (lib/oauth/metadata.ts): clients that speak only OAuth connect by URL alone.
 */
export function protectedResourceMetadata(event: HttpEvent) {
  return {
    resource: `${baseUrl(event)}${MCP_PATH}`,
    authorization_servers: [baseUrl(event)],
    bearer_methods_supported: ['header'],
    resource_name: 'Workspace Service',
  };
}
