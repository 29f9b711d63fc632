import * as z from 'zod/mini';
import { baseChain } from '../lib/http/base-chain.ts';
import { countForAddress } from '../lib/oauth/address-limit.ts';
import { registerClient } from '../lib/oauth/clients.ts';
import { OAuthError } from '../lib/oauth/errors.ts';
import { oauthErrorReply, oauthJson } from '../lib/oauth/reply.ts';

/**
 * POST /oauth/register — dynamic client registration (RFC 7591) of a public client: 201 with its
 * `client_id`; 400 `invalid_redirect_uri` or `invalid_client_metadata` with why. No token: a
 * client registers before anyone signs in; what it may do is decided at consent. Every request is
 * counted against its source address first (lib/oauth/address-limit.ts): 429
 * `temporarily_unavailable` with Retry-After beyond the limit, nothing registered.
 */
export const handler = baseChain().handler(async (event, context) => {
  try {
    await countForAddress('register', event.requestContext.http.sourceIp, Date.now());
    const text = event.body === undefined ? '' : event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new OAuthError('invalid_client_metadata', 'the body must be JSON');
    }
    return oauthJson(201, await registerClient(body, new Date()));
  } catch (error) {
    return oauthErrorReply(error, context.requestId);
  }
});

export const successStatus = 201;
export const responseHeaders = ['Cache-Control'];

export const responseSchema = z.object({
  client_id: z.string(),
  client_id_issued_at: z.int(),
  client_name: z.optional(z.string()),
  redirect_uris: z.array(z.string()),
  token_endpoint_auth_method: z.literal('none'),
  grant_types: z.array(z.string()),
  response_types: z.array(z.literal('code')),
});
