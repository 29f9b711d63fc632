import * as z from 'zod/mini';
import { issuingSigner } from '../lib/auth/issuing-signer.ts';
import { baseChain } from '../lib/http/base-chain.ts';
import { baseUrl } from '../lib/http/base-url.ts';
import { oauthErrorReply, oauthJson } from '../lib/oauth/reply.ts';
import { exchange } from '../lib/oauth/token.ts';

/**
 * POST /oauth/token — a one-time code or a refresh token (form-encoded, public clients: no secret)
 * for the grant's access token and the next refresh token. Errors are RFC 6749 §5.2 bodies.
 */
export const handler = baseChain().handler(async (event, context) => {
  try {
    const raw = event.body ?? '';
    const form = new URLSearchParams(event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw);
    // Date.now, which a test can move (a code past its 60 s).
    return oauthJson(200, await exchange(form, issuingSigner(), baseUrl(event), new Date(Date.now())));
  } catch (error) {
    return oauthErrorReply(error, context.requestId);
  }
});

export const responseHeaders = ['Cache-Control'];

export const responseSchema = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.int(),
  refresh_token: z.string(),
  organization_id: z.string(),
});
