import type { MiddlewareObj } from '@middy/core';
import * as z from 'zod/mini';
import { type Issue, issuesOf, validationFailed } from '../errors.ts';
import type { HttpEvent, HttpResult, ServiceContext } from './types.ts';

export interface InputSchemas {
  path?: z.core.$ZodType;
  query?: z.core.$ZodType;
  /** Request headers, names in lower case (API Gateway v2 lower-cases them). */
  headers?: z.core.$ZodType;
  body?: z.core.$ZodType;
}

/**
 * Query parameters from the raw query string, so that a repeated parameter is seen as such
 * (API Gateway joins repeats with commas in queryStringParameters).
 */
function readQuery(event: HttpEvent): { values: Record<string, string>; issues: Issue[] } {
  const values: Record<string, string> = {};
  const issues: Issue[] = [];
  const params = new URLSearchParams(event.rawQueryString ?? '');
  for (const name of new Set(params.keys())) {
    const all = params.getAll(name);
    if (all.length > 1) {
      issues.push({ path: ['query', name], code: 'repeated', message: 'must be given once' });
    } else {
      values[name] = all[0] ?? '';
    }
  }
  return { values, issues };
}

const lowerCaseHeaders = (headers: HttpEvent['headers'] | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(headers ?? {}).map(([name, value]) => [name.toLowerCase(), value ?? '']));

/** Validates path, query and body before any I/O; handlers read `context.input`. */
export const validateInput = (schemas: InputSchemas): MiddlewareObj<HttpEvent, HttpResult, Error, ServiceContext> => ({
  before: async (request) => {
    const query = readQuery(request.event);
    const issues: Issue[] = [...query.issues];
    const parse = (location: string, schema: z.core.$ZodType | undefined, input: unknown) => {
      if (!schema) return undefined;
      const result = z.safeParse(schema, input);
      if (result.success) return result.data;
      issues.push(...issuesOf(location, result.error, input));
      return undefined;
    };
    const input = {
      path: parse('path', schemas.path, request.event.pathParameters ?? {}),
      query: parse('query', schemas.query, query.values),
      headers: parse('header', schemas.headers, lowerCaseHeaders(request.event.headers)),
      body: parse('body', schemas.body, request.event.body),
    };
    if (issues.length > 0) throw validationFailed(issues);
    request.context.input = input;
  },
});
