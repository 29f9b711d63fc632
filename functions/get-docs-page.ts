import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import { baseChain } from '../lib/http/base-chain.ts';
import { staticBody, staticReply } from '../lib/http/static-reply.ts';

// Relative URLs: the page works under any base path (a custom domain's mapping included).
const INIT = `window.ui = SwaggerUIBundle({
  url: 'openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  docExpansion: 'list',
  filter: true,
  displayOperationId: true,
  defaultModelsExpandDepth: 0,
  validatorUrl: null,
});`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Workspace Service API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script>${INIT}</script>
</body>
</html>
`;

/**
 * Nothing but this service: scripts from here and the one inline script above (by its hash),
 * requests (the document, "Try it out") to here only. Swagger UI sets inline styles and data:
 * images (its icons).
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `script-src 'self' 'sha256-${createHash('sha256').update(INIT).digest('base64')}'`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const body = staticBody(PAGE, 'text/html; charset=utf-8', 'public, max-age=300');

/** GET /docs — the API reference page (Swagger UI, served by this service); no token, not rate limited. */
export const handler = baseChain().handler(async (event) =>
  staticReply(body, event, { 'Content-Security-Policy': CONTENT_SECURITY_POLICY, 'X-Content-Type-Options': 'nosniff' }),
);

/** The 200 body, for the API description: an HTML page. */
/** Cached by clients and proxies (lib/http/static-reply.ts). */
export const responseHeaders = ['Cache-Control'];
export const responseSchema = z.string();
export const responseMediaTypes = ['text/html'] as const;
