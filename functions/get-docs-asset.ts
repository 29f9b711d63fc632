import * as z from 'zod/mini';
import { DOCS_ASSETS } from '../lib/docs-assets.ts';
import { notFound } from '../lib/errors.ts';
import { baseChain } from '../lib/http/base-chain.ts';
import { type StaticBody, staticBody, staticReply } from '../lib/http/static-reply.ts';
import { readAsset } from '../lib/openapi/read-asset.ts';

/** Read and gzipped on first request, then kept for the life of the instance. */
const loaded = new Map<string, StaticBody>();

/** GET /docs/{asset} — Swagger UI's script and style sheet for the reference page; no token, not rate limited. */
export const handler = baseChain().handler(async (event) => {
  const name = event.pathParameters?.asset;
  const asset = DOCS_ASSETS.find((candidate) => candidate.name === name);
  if (!asset) throw notFound();
  let body = loaded.get(asset.name);
  if (!body) {
    body = staticBody(readAsset(asset.source), asset.contentType, 'public, max-age=86400');
    loaded.set(asset.name, body);
  }
  return staticReply(body, event, { 'X-Content-Type-Options': 'nosniff' });
});

/** The 200 body, for the API description: a script or a style sheet. */
export const responseSchema = z.string();
export const responseMediaTypes = ['text/javascript', 'text/css'] as const;
