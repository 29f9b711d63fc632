import type { Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import { withDeadline, withWriteBarrier } from '../db/client.ts';
import { apiVersion } from './api-version.ts';
import { resourceMetadataChallenge } from './auth-challenge.ts';
import { authenticate } from './authenticate.ts';
import { baseChain } from './base-chain.ts';
import type { jsonBody } from './json-body.ts';
import { logIdentity } from './observability.ts';
import { rateLimit } from './rate-limit.ts';
import type { HttpEvent, HttpResult, ServiceContext } from './types.ts';
import { type InputSchemas, validateInput } from './validate.ts';

export { baseChain };

type Parsed<S> = S extends z.core.$ZodType ? z.output<S> : undefined;
export type EndpointInput<S extends InputSchemas> = {
  path: Parsed<S['path']>;
  query: Parsed<S['query']>;
  headers: Parsed<S['headers']>;
  body: Parsed<S['body']>;
};

/** A 2xx answer with extra headers; handlers that need only a 200 body return the body. */
export class Reply {
  constructor(
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
    readonly status = 200,
  ) {}
}

/**
 * A body already serialized to JSON, sent as it is: a listing served from its cache, an answer
 * the MCP SDK wrote. Parsing it back only to serialize it again costs milliseconds on a large
 * body (docs/performance.md).
 */
export class JsonText {
  constructor(readonly json: string) {}
}

/** A body that is not JSON (a CSV answer), sent as it is with its own media type. */
export class TextBody {
  constructor(
    readonly text: string,
    readonly contentType: string,
  ) {}
}

export interface EndpointOptions<S extends InputSchemas> {
  schemas: S;
  /**
   * Parse the request body as JSON (POST endpoints that take one): `jsonBody` of
   * lib/http/json-body.ts, passed in so that endpoints without a body bundle no parser.
   */
  jsonBody?: typeof jsonBody;
  /** Name this RFC 9728 metadata URL in every 401's `WWW-Authenticate` (the MCP route). */
  resourceMetadataUrl?: (event: HttpEvent) => string;
}

/**
 * What an endpoint() handler was built from, kept on the handler (`handler.endpoint`) so that
 * the OpenAPI generator (lib/openapi/) describes requests with the very schemas that validate
 * them. A handler without it is a baseChain() route: no token, no version check, no rate limit.
 */
export interface EndpointDescription {
  schemas: InputSchemas;
  jsonBody: boolean;
}

/**
 * The middleware chain every endpoint shares, in the documented order of checks:
 * 401 authentication → 400 API version → 429 rate limit → 400 JSON / validation → the handler
 * (404/403/409/402 and the work).
 *
 * The rate limit belongs to the chain, not to handlers: its counter is started before
 * validation and the handler runs at once, its reads alongside the counter (one round trip
 * for both), but every write the handler sends waits for the verdict (withWriteBarrier), and
 * no answer leaves before it: a caller over its limit gets 429 whatever the handler did.
 */
export function endpoint<S extends InputSchemas>(
  options: EndpointOptions<S>,
  handler: (input: EndpointInput<S>, context: ServiceContext, event: HttpEvent) => Promise<unknown>,
) {
  const chain = baseChain();
  if (options.resourceMetadataUrl) chain.use(resourceMetadataChallenge(options.resourceMetadataUrl));
  chain.use(authenticate()).use(apiVersion()).use(rateLimit());
  if (options.jsonBody) chain.use(options.jsonBody());
  const handled = chain
    .use(validateInput(options.schemas))
    .use(logIdentity())
    .handler(async (event, context): Promise<HttpResult> => {
      const { rateLimit: limit, credential } = context;
      const run = () => handler(context.input as EndpointInput<S>, context, event);
      // No write before the caller's verdicts: its rate limit, and an API key's standing.
      const verdicts = async () => {
        await credential?.check();
        await limit?.check();
      };
      const result = limit || credential ? await withWriteBarrier(verdicts, run) : await run();
      await verdicts();
      const reply = result instanceof Reply ? result : new Reply(result);
      // No body, no Content-Type (a 204).
      if (reply.body === undefined) return { statusCode: reply.status, headers: { ...reply.headers } };
      if (reply.body instanceof TextBody)
        return { statusCode: reply.status, headers: { 'Content-Type': reply.body.contentType, ...reply.headers }, body: reply.body.text };
      return {
        statusCode: reply.status,
        headers: { 'Content-Type': 'application/json', ...reply.headers },
        body: reply.body instanceof JsonText ? reply.body.json : JSON.stringify(reply.body),
      };
    });
  const endpoint: EndpointDescription = { schemas: options.schemas, jsonBody: options.jsonBody !== undefined };
  // The whole invocation, middlewares included (the rate-limit counter is sent by one), runs
  // under the request's deadline: no DynamoDB call is waited for past it (lib/db/client.ts).
  const scoped = (event: HttpEvent, context: Context): Promise<HttpResult> => {
    const deadlineMs = deadlineOf(context);
    return withDeadline(deadlineMs, () => handled(event, Object.assign(context, { deadlineMs }) as ServiceContext));
  };
  return Object.assign(scoped, { endpoint });
}

/** Time kept to write the answer after the last DynamoDB call the request waits for. */
const ANSWER_MARGIN_MS = 500;

const deadlineOf = (context: Context): number =>
  Date.now() + (context.getRemainingTimeInMillis?.() ?? Number.POSITIVE_INFINITY) - ANSWER_MARGIN_MS;
