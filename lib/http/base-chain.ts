import middy from '@middy/core';
import httpErrorHandler from '@middy/http-error-handler';
import { cors } from './cors.ts';
import { errorMapper } from './error-mapper.ts';
import { outermost, requestLog } from './observability.ts';
import { requestContext } from './request-context.ts';
import type { HttpEvent, HttpResult, ServiceContext } from './types.ts';

// Its own module, apart from endpoint(): routes without authentication (the $default route, the
// discovery document) import this alone and bundle no DynamoDB client.
/**
 * The outer half of every chain, the `$default` route's included: request id and the headers
 * every answer carries, the request log line and metrics, and the one error mapper.
 *
 * `.use()` order matters: before-middlewares run top to bottom, onError bottom to top, so
 * errorMapper prepares the body, httpErrorHandler writes it, requestLog logs and counts it,
 * cors and requestContext stamp headers, and the outermost middlewares (lib/observability) drop
 * the request's log keys.
 */
export const baseChain = () =>
  middy<HttpEvent, HttpResult, Error, ServiceContext>()
    .use(outermost())
    .use(requestContext())
    .use(cors())
    .use(requestLog())
    .use(httpErrorHandler({ logger: false }))
    .use(errorMapper());
