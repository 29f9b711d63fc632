import * as z from 'zod/mini';
import { baseChain } from '../lib/http/base-chain.ts';
import { protectedResourceMetadata } from '../lib/mcp/discovery.ts';

/**
 * GET /.well-known/oauth-protected-resource — RFC 9728 metadata of the MCP endpoint: where a
 * client without a token learns that this service itself is the authorization server.
 * Public like any discovery document: no token, not rate limited.
 */
export const handler = baseChain().handler(async (event) => ({
  statusCode: 200,
  headers: { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=3600' },
  body: JSON.stringify(protectedResourceMetadata(event)),
}));

/** Cached by clients and proxies. */
export const responseHeaders = ['Cache-Control'];

export const responseSchema = z.object({
  resource: z.string(),
  authorization_servers: z.array(z.string()),
  bearer_methods_supported: z.array(z.literal('header')),
  resource_name: z.string(),
});
