import middy from '@middy/core';
import httpErrorHandler from '@middy/http-error-handler';
import { ApiError } from '../lib/errors.ts';
import { errorMapper } from '../lib/http/error-mapper.ts';
import { requestContext } from '../lib/http/request-context.ts';
import type { HttpEvent, HttpResult, ServiceContext } from '../lib/http/types.ts';
import { powertools, requestLog } from '../lib/observability/middleware.ts';

/**
 * API Gateway's $default route: any method and path the route table does not name. It answers
 * before authentication, as there is no resource to protect, with the documented error body.
 */
export const handler = middy<HttpEvent, HttpResult, Error, ServiceContext>()
  .use(powertools())
  .use(requestContext())
  .use(requestLog())
  .use(httpErrorHandler({ logger: false }))
  .use(errorMapper())
  .handler(async (event) => {
    throw new ApiError(404, 'route_not_found', `no route for ${event.requestContext.http.method} ${event.rawPath}`);
  });
