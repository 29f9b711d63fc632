import { tokenVerifier } from '../lib/auth/verifier.ts';
import { baseChain } from '../lib/http/base-chain.ts';
import { oauthErrorReply, oauthJson } from '../lib/oauth/reply.ts';
import { revokeToken } from '../lib/oauth/revocation.ts';

/**
 * POST /oauth/revoke — RFC 7009 token revocation (form-encoded: `token`, `client_id`, optional
 * `token_type_hint`): either token of a grant revokes the grant. 200 with an empty JSON object,
 * also for a token this service does not know; 400 `unauthorized_client` for another client's.
 */
export const handler = baseChain().handler(async (event, context) => {
  try {
    const raw = event.body ?? '';
    const form = new URLSearchParams(event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw);
    await revokeToken(form, tokenVerifier(), new Date());
    return oauthJson(200, {});
  } catch (error) {
    return oauthErrorReply(error, context.requestId);
  }
});
