import type { MiddlewareObj } from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { HttpEvent, HttpResult, ServiceContext } from './types.ts';

type Middleware = MiddlewareObj<HttpEvent, HttpResult, Error, ServiceContext>;

/**
 * The request body parsed as JSON, for endpoint()'s `jsonBody` option. Its own module, which only
 * the functions that take a body import: the others then bundle no body parser (nor what it needs
 * of @middy/util; docs/performance.md#bundles-size-and-cold-start).
 */
export const jsonBody = (): Middleware[] => [
  // An absent or empty body is an empty object: operations without required inputs need none.
  {
    before: async (request) => {
      if (request.event.body === undefined || request.event.body === '') request.event.body = '{}';
    },
  },
  // Any Content-Type is parsed as JSON (415 is not a status of this API); the option exists at
  // runtime in middy 6 but is missing from its type declarations.
  httpJsonBodyParser({ disableContentTypeCheck: true } as Parameters<typeof httpJsonBodyParser>[0]) as Middleware,
];
