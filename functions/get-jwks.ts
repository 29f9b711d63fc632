import * as z from 'zod/mini';
import { listSigningKeys, type PublicJwk } from '../lib/db/api-keys.ts';
import { baseChain } from '../lib/http/base-chain.ts';

/** Served from memory for this long: a public route must not cost a table read per request. */
const KEEP_MS = 60_000;
let kept: { keys: PublicJwk[]; untilMs: number } | undefined;

/**
 * GET /.well-known/jwks.json — the public keys that sign this service's API keys (RFC 7517), as
 * the key-issuing function published them: what anyone needs to verify an API key's signature.
 * No token, not rate limited; a key added by a rotation appears within a minute.
 */
export const handler = baseChain().handler(async () => {
  const nowMs = Date.now();
  if (!kept || kept.untilMs <= nowMs) kept = { keys: await listSigningKeys(), untilMs: nowMs + KEEP_MS };
  return {
    statusCode: 200,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=300' },
    body: JSON.stringify({ keys: kept.keys }),
  };
});

/** Cached by clients and proxies. */
export const responseHeaders = ['Cache-Control'];

export const responseSchema = z.object({
  keys: z.array(
    z.object({ kty: z.literal('RSA'), n: z.string(), e: z.string(), kid: z.string(), alg: z.literal('RS256'), use: z.literal('sig') }),
  ),
});
