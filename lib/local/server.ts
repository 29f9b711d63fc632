import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Context } from 'aws-lambda';
import { defined } from '../defined.ts';
import { badRequest, forbidden, headersTooLarge, payloadTooLarge, type ServiceError } from '../errors.ts';
import { errorBody } from '../http/error-mapper.ts';
import { API_VERSION } from '../http/request-context.ts';
import type { HttpEvent, HttpResult } from '../http/types.ts';
import { matchRoute, routeKey, routes } from '../routes.ts';
import { buildHttpEvent, localContext, peerAddress } from './apigw-event.ts';
import { invoke } from './invocations.ts';
import { FunctionError } from './lambda.ts';
import { answerSendEmail, isSendEmailCall } from './ses-outbox.ts';
import { answerSqsCall, isSqsCall } from './sqs-bridge.ts';

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

/** API Gateway HTTP API quota: "total combined size of request line and header values". */
export const HEADER_LIMIT_BYTES = 10_240;
/**
 * Node's own parser limit, above API Gateway's so that most oversize requests are parsed and
 * measured like API Gateway measures them; beyond it Node refuses them (clientError, below).
 */
const PARSER_HEADER_LIMIT_BYTES = 64 * 1024;

/** Request line plus header values, as API Gateway counts them. */
function headerBytes(request: IncomingMessage): number {
  let total = Buffer.byteLength(`${request.method} ${request.url} HTTP/${request.httpVersion}`);
  for (let i = 1; i < request.rawHeaders.length; i += 2) total += Buffer.byteLength(request.rawHeaders[i] ?? '');
  return total;
}

/**
 * The path and query of a request target: origin form (`/path?query`) or absolute form
 * (`http://host/path`, which proxies send). Anything else API Gateway cannot route.
 */
function parseTarget(target: string): URL | ServiceError {
  const absolute = /^[a-z][a-z0-9+.-]*:\/\//i.test(target);
  if (!absolute && !target.startsWith('/')) return badRequest('the request target must be a path starting with /');
  try {
    // A fixed origin, so that `//host/path` stays a path, as it is for API Gateway.
    return new URL(absolute ? target : `http://local${target}`);
  } catch {
    return badRequest('the request target is not a valid URL');
  }
}

/**
 * API Gateway joins a header sent more than once with commas (payload 2.0). Node would keep only
 * the first Authorization, so a valid token followed by garbage would pass here and fail there.
 */
function joinedHeaders(request: IncomingMessage): Record<string, string> {
  return Object.fromEntries(Object.entries(request.headersDistinct).map(([name, values]) => [name, (values ?? []).join(',')]));
}

const errorHeaders = (requestId: string) => ({
  'Content-Type': 'application/json',
  'x-request-id': requestId,
  'Endless-Api-Version': API_VERSION,
});

function answerError(response: ServerResponse, error: ServiceError): void {
  const requestId = randomUUID();
  response.writeHead(error.status, errorHeaders(requestId)).end(JSON.stringify(errorBody(error, requestId)));
}

/** Writes an error answer on a socket Node does not answer through a ServerResponse, and closes it. */
function answerOnSocket(socket: Duplex, error: ServiceError): void {
  const requestId = randomUUID();
  const body = JSON.stringify(errorBody(error, requestId));
  const headers = { ...errorHeaders(requestId), 'Content-Length': Buffer.byteLength(body), Connection: 'close' };
  const head = [`HTTP/1.1 ${error.status} ${error.status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}`];
  for (const [name, value] of Object.entries(headers)) head.push(`${name}: ${value}`);
  // Read what the client still sends: closing on unread input would reset the connection and
  // could discard the answer before the client reads it.
  socket.resume();
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  setTimeout(() => socket.destroy(), 1000).unref();
}

/**
 * What Node's HTTP parser refuses (an invalid method or target, headers over its limit) never
 * becomes a request: answer it here in the documented error shape, as API Gateway answers
 * before any function runs, instead of Node's empty 400 or a reset connection.
 */
function answerParseError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // A client gone, or one too slow to send its request (Node's request timeout): no one to answer.
  if (error.code === 'ECONNRESET' || error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || !socket.writable) {
    socket.destroy();
    return;
  }
  answerOnSocket(
    socket,
    error.code === 'HPE_HEADER_OVERFLOW'
      ? headersTooLarge(HEADER_LIMIT_BYTES)
      : error.code === 'HPE_INVALID_URL'
        ? badRequest('the request target must be a path starting with /')
        : error.code === 'HPE_INVALID_METHOD'
          ? badRequest('the request method is not valid')
          : badRequest('the request is not valid HTTP/1.1'),
  );
}

/**
 * The names this server answers to: its loopback addresses, on its own port. A web page whose
 * name an attacker rebinds to 127.0.0.1 (DNS rebinding) reaches this server with that name in
 * `Host`; refused before anything runs, it reads nothing (not the demo users' tokens, not a
 * route's answer) and changes nothing. API Gateway plays no part in this: deployed, it answers
 * only for the API's own domain names.
 */
const LOCAL_HOST = /^(?:127\.0\.0\.1|localhost|\[::1\]):(\d{1,5})$/i;

/**
 * Why a request whose `Host` is not this server's own is refused, or undefined for one that is:
 * 403 `forbidden`, as /mcp answers a foreign `Origin`, and what MCP's conformance suite asks of a
 * local server (its `dns-rebinding-protection` scenario).
 */
export function foreignHost(host: string | undefined, port: number): ServiceError | undefined {
  if (Number(LOCAL_HOST.exec(host ?? '')?.[1]) === port) return undefined;
  const given = host === undefined ? 'no Host' : `Host ${JSON.stringify(host.slice(0, 100))}`;
  return forbidden(
    `this local server answers only for 127.0.0.1:${port}, localhost:${port} and [::1]:${port}, not ${given} (a guard against DNS rebinding)`,
  );
}

/**
 * Lambda's synchronous invocation payload: 6 MB (6,291,456 bytes) for the event it is given and
 * as much for the result it returns (Lambda quotas). API Gateway accepts bodies up to 10 MB, so
 * a request between the two reaches Lambda and is refused there; the local server refuses it
 * here, in the documented error shape, measured as Lambda measures it: the event as JSON.
 */
export const LAMBDA_PAYLOAD_LIMIT_BYTES = 6 * 1024 * 1024;

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

/** The body, or undefined when it alone is over Lambda's limit (the rest is read and dropped, not kept). */
async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of request) {
    bytes += (chunk as Buffer).length;
    if (bytes <= LAMBDA_PAYLOAD_LIMIT_BYTES) chunks.push(chunk as Buffer);
  }
  return bytes > LAMBDA_PAYLOAD_LIMIT_BYTES ? undefined : Buffer.concat(chunks).toString('utf8');
}

/**
 * A small stand-in for API Gateway: matches the route table, builds a payload 2.0 event,
 * invokes the real handler and writes its result. Also serves the local JWKS. `handlers` may
 * still be loading: the server can listen (and a busy port show) before the stack is ready;
 * requests that arrive meanwhile wait.
 */
/**
 * Where the local server plays the identity provider's part, serving the dev key's JWKS (the
 * service's own `/.well-known/jwks.json` is a route: the keys that sign API keys).
 */
export const LOCAL_IDP_JWKS_PATH = '/local-idp/.well-known/jwks.json';

/**
 * Where the console finds the demo users to sign in as (docs/console.md): served by this server
 * alone, never a route of the table, so no deployed stack has it (test/infra/stack.unit.test.ts).
 * Their tokens are the ones `npm start` prints and writes to `.local/dev.json`.
 */
export const LOCAL_DEMO_USERS_PATH = '/local-idp/demo-users';

/** A demo user the console offers on the local stack. */
export interface DemoUser {
  role: string;
  user_id: string;
  token: string;
}

export function createLocalServer(
  handlers: Map<string, LambdaHandler> | Promise<Map<string, LambdaHandler>>,
  options: {
    jwks?: unknown;
    /** The demo users to offer at LOCAL_DEMO_USERS_PATH (none yet while the stack starts). */
    demoUsers?: () => readonly DemoUser[];
    onAnswer?: (line: AnswerLine) => void;
    /** Answer SQS calls into this process's embedded queues (bundled functions, the admin CLI: lib/local/sqs-bridge.ts). */
    sqsBridge?: boolean;
    /** Answer SES's SendEmail at LOCAL_SES_PREFIX by writing each message to this folder (lib/local/ses-outbox.ts). */
    outboxDir?: string;
  } = {},
): Server {
  // An idle connection is kept a minute, as a gateway keeps its clients'. With Node's 5 s, a
  // client that reuses a connection just as the server drops it gets "fetch failed" (a POST is
  // not retried), and on a busy machine a test's calls can be seconds apart.
  const server = createServer({ maxHeaderSize: PARSER_HEADER_LIMIT_BYTES }, async (request: IncomingMessage, response: ServerResponse) => {
    try {
      const misdirected = foreignHost(request.headers.host, request.socket.localPort ?? 0);
      if (misdirected) return answerError(response, misdirected);
      const url = parseTarget(request.url ?? '');
      if (!(url instanceof URL)) return answerError(response, url);
      if (headerBytes(request) > HEADER_LIMIT_BYTES) return answerError(response, headersTooLarge(HEADER_LIMIT_BYTES));
      if (options.jwks && request.method === 'GET' && url.pathname === LOCAL_IDP_JWKS_PATH) {
        response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(options.jwks));
        return;
      }
      if (options.demoUsers && request.method === 'GET' && url.pathname === LOCAL_DEMO_USERS_PATH) {
        // Same origin only (no CORS header): another site open in the browser cannot read the tokens.
        response
          .writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' })
          .end(JSON.stringify({ users: options.demoUsers() }));
        return;
      }
      const method = request.method ?? 'GET';
      const target = request.headers['x-amz-target'];
      if (options.sqsBridge && method === 'POST' && isSqsCall(target)) {
        const answer = await answerSqsCall(String(target), (await readBody(request)) ?? '');
        response.writeHead(answer.status, { 'Content-Type': 'application/x-amz-json-1.0' }).end(JSON.stringify(answer.body));
        return;
      }
      if (options.outboxDir && isSendEmailCall(method, url.pathname)) {
        const answer = answerSendEmail((await readBody(request)) ?? '', options.outboxDir);
        response.writeHead(answer.status, { 'Content-Type': 'application/json', ...answer.headers }).end(JSON.stringify(answer.body));
        return;
      }
      const { route, pathParameters } = matchRoute(method, url.pathname);
      const body = await readBody(request);
      if (body === undefined) return answerError(response, payloadTooLarge('request', LAMBDA_PAYLOAD_LIMIT_BYTES));
      const event = buildHttpEvent({
        method,
        path: url.pathname,
        routeKey: routeKey(route),
        rawQueryString: url.search.slice(1),
        headers: joinedHeaders(request),
        body,
        sourceIp: peerAddress(request.socket.remoteAddress),
        ...(pathParameters ? { pathParameters } : {}),
      });
      if (jsonBytes(event) > LAMBDA_PAYLOAD_LIMIT_BYTES)
        return answerError(response, payloadTooLarge('request', LAMBDA_PAYLOAD_LIMIT_BYTES));
      const handler = defined((await handlers).get(route.name), `the handler of ${route.name}`);
      const context = localContext(route.name);
      const startedAt = performance.now();
      const result = await invoke(() => handler(event, context));
      // Lambda refuses to return a result over its limit: the function's answer never leaves.
      const oversize = jsonBytes(result) > LAMBDA_PAYLOAD_LIMIT_BYTES;
      const ms = performance.now() - startedAt;
      options.onAnswer?.({ method, path: url.pathname, status: oversize ? 413 : (result.statusCode ?? 200), ms });
      if (oversize) return answerError(response, payloadTooLarge('response', LAMBDA_PAYLOAD_LIMIT_BYTES));
      const outHeaders = Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k, String(v)]));
      // A base64 body (gzipped static files) is bytes on the wire, as API Gateway sends it.
      const sent = result.isBase64Encoded && result.body ? Buffer.from(result.body, 'base64') : (result.body ?? '');
      response.writeHead(result.statusCode ?? 200, outHeaders).end(sent);
    } catch (error) {
      // What API Gateway answers when a function crashes outright (or, bundled, times out).
      console.error('local server: handler crashed', error instanceof FunctionError ? error.message : error);
      response.writeHead(500, { 'Content-Type': 'application/json' }).end(JSON.stringify({ message: 'Internal Server Error' }));
    }
  });
  server.on('clientError', answerParseError);
  // Node hands these over as raw sockets (and without a listener drops or stalls them); an HTTP
  // API has no tunnels and no WebSocket upgrades.
  server.on('connect', (_request, socket: Duplex) => answerOnSocket(socket, badRequest('the request method is not supported')));
  server.on('upgrade', (_request, socket: Duplex) => answerOnSocket(socket, badRequest('protocol upgrades are not supported')));
  server.keepAliveTimeout = 60_000;
  return server;
}

/** One answered request, for `npm start`'s console. */
export interface AnswerLine {
  method: string;
  path: string;
  status: number;
  ms: number;
}

/** `POST /social/x_profile 200 12 ms`: what a person watching `npm start` needs, and no more. */
export const requestLine = (line: AnswerLine): string => `${line.method} ${line.path} ${line.status} ${Math.round(line.ms)} ms`;
