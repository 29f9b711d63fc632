import * as z from 'zod/mini';
import { baseChain } from '../lib/http/base-chain.ts';
import { baseUrl } from '../lib/http/base-url.ts';
import { authorizationServerMetadata } from '../lib/oauth/metadata.ts';

/**
 * GET /.well-known/oauth-authorization-server — RFC 8414 metadata: this service is the
 * authorization server of its own `/mcp` (docs/mcp.md, "Connecting by OAuth"). Public.
 */
export const handler = baseChain().handler(async (event) => ({
  statusCode: 200,
  headers: { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=3600' },
  body: JSON.stringify(authorizationServerMetadata(baseUrl(event))),
}));

export const responseHeaders = ['Cache-Control'];

export const responseSchema = z.object({
  issuer: z.string(),
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  registration_endpoint: z.string(),
  revocation_endpoint: z.string(),
  revocation_endpoint_auth_methods_supported: z.array(z.literal('none')),
  response_types_supported: z.array(z.literal('code')),
  response_modes_supported: z.array(z.literal('query')),
  grant_types_supported: z.array(z.string()),
  code_challenge_methods_supported: z.array(z.literal('S256')),
  token_endpoint_auth_methods_supported: z.array(z.literal('none')),
  client_id_metadata_document_supported: z.boolean(),
  service_documentation: z.string(),
});
