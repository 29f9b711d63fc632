import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Context } from 'aws-lambda';
import type { HttpEvent, HttpResult } from '../http/types.ts';
import { matchRoute, routeKey, routes } from '../routes.ts';
import { buildHttpEvent, localContext } from './apigw-event.ts';

export type LambdaHandler = (event: HttpEvent, context: Context) => Promise<HttpResult>;

/** Imports every route's handler module (the same files the CDK stack bundles). */
export async function loadHandlers(): Promise<Map<string, LambdaHandler>> {
  const handlers = new Map<string, LambdaHandler>();
  for (const route of routes) {
    const module = (await import(new URL(`../../${route.entry}`, import.meta.url).href)) as { handler: LambdaHandler };
    handlers.set(route.name, module.handler);
  }
  return handlers;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A small stand-in for API Gateway: matches the route table, builds a payload 2.0 event,
 * invokes the real handler and writes its result. Also serves the local JWKS.
 */
export function createLocalServer(handlers: Map<string, LambdaHandler>, options: { jwks?: unknown } = {}): Server {
  return createServer(async (request: IncomingMessage, response: ServerResponse) => {
    try {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      if (options.jwks && request.method === 'GET' && url.pathname === '/.well-known/jwks.json') {
        response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(options.jwks));
        return;
      }
      const method = request.method ?? 'GET';
      const { route, pathParameters } = matchRoute(method, url.pathname);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
      }
      const event = buildHttpEvent({
        method,
        path: url.pathname,
        routeKey: routeKey(route),
        rawQueryString: url.search.slice(1),
        headers,
        body: await readBody(request),
        ...(pathParameters ? { pathParameters } : {}),
      });
      const result = await handlers.get(route.name)!(event, localContext(route.name));
      const outHeaders = Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k, String(v)]));
      // A base64 body (gzipped static files) is bytes on the wire, as API Gateway sends it.
      const body = result.isBase64Encoded && result.body ? Buffer.from(result.body, 'base64') : (result.body ?? '');
      response.writeHead(result.statusCode ?? 200, outHeaders).end(body);
    } catch (error) {
      // What API Gateway answers when a function crashes outright.
      console.error('local server: handler crashed', error);
      response.writeHead(500, { 'Content-Type': 'application/json' }).end(JSON.stringify({ message: 'Internal Server Error' }));
    }
  });
}
