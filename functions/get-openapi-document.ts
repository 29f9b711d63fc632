import * as z from 'zod/mini';
import { baseChain } from '../lib/http/endpoint.ts';
import { staticBody, staticReply } from '../lib/http/static-reply.ts';
// Generated at build time by `npm run openapi` (a test keeps it fresh): this function carries
// the document, not the generator, the catalog's zod schemas or the other functions.
import document from '../openapi.json' with { type: 'json' };

const body = staticBody(JSON.stringify(document), 'application/json', 'public, max-age=300');

/** GET /openapi.json — the API description (OpenAPI 3.1); no token, not rate limited. */
export const handler = baseChain().handler(async (event) => staticReply(body, event));

/** The 200 body, for the API description: an OpenAPI document. */
export const responseSchema = z.looseObject({
  openapi: z.string(),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.looseObject({})),
});
