import * as z from 'zod/mini';
import { baseChain } from '../lib/http/base-chain.ts';
import { baseUrl } from '../lib/http/base-url.ts';

/**
 * What `GET /` points at, by field name: the pages and documents a newcomer starts from
 * (`test/service-index.unit.test.ts` fails while a page route is left out).
 */
export const ENTRY_POINTS = {
  docs: '/docs',
  console: '/console',
  openapi: '/openapi.json',
} as const;

/** A browser asking for a page; `*\/*` alone (curl, fetch) is not one. */
const wantsHtml = (accept: string | undefined) => /\btext\/html\b/i.test(accept ?? '');

/**
 * GET / — where to start, no token, not rate limited: a browser is sent to the reference page
 * (302 to `/docs`), any other client gets a small JSON document naming the entry points as URLs
 * of the deployment it called (its host and stage, as /mcp's discovery builds them).
 */
export const handler = baseChain().handler(async (event) => {
  const base = baseUrl(event);
  const headers = { 'Cache-Control': 'public, max-age=300', Vary: 'Accept' };
  if (wantsHtml(event.headers?.accept)) return { statusCode: 302, headers: { ...headers, Location: `${base}${ENTRY_POINTS.docs}` } };
  const links = Object.fromEntries(Object.entries(ENTRY_POINTS).map(([name, path]) => [name, `${base}${path}`]));
  return {
    statusCode: 200,
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Workspace Service', ...links }),
  };
});

/** Cached by clients and proxies, per Accept. */
export const responseHeaders = ['Cache-Control'];
export const otherResponses = { '302': 'A browser (`Accept` naming `text/html`): `Location` is this deployment’s `/docs`.' };
export const otherResponseHeaders = { '302': ['Location', 'Cache-Control'] };
export const responseSchema = z.object({
  name: z.literal('Workspace Service'),
  docs: z.string().register(z.globalRegistry, { description: 'the reference page (Swagger UI) of this deployment' }),
  console: z.string().register(z.globalRegistry, { description: 'the web console of this deployment: sign in and manage the workspace' }),
  openapi: z.string().register(z.globalRegistry, { description: 'this API described as OpenAPI 3.1' }),
});
