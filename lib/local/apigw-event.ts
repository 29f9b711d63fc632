import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import type { HttpEvent } from '../http/types.ts';

export interface EventInput {
  method: string;
  /** Path as requested (no query string). */
  path: string;
  /** The route's API Gateway key, e.g. "GET /social/operations". */
  routeKey: string;
  pathParameters?: Record<string, string>;
  rawQueryString?: string;
  headers?: Record<string, string>;
  body?: string;
  /**
   * The client's address as API Gateway sees it (`requestContext.http.sourceIp`): the local
   * server passes the socket's peer address, never a header the client sets (X-Forwarded-For,
   * Forwarded). Default 127.0.0.1.
   */
  sourceIp?: string;
}

/** A socket's peer address as API Gateway would report it: an IPv4 client of a dual-stack socket (`::ffff:a.b.c.d`) as IPv4. */
export const peerAddress = (address: string | undefined): string => {
  const value = address ?? '';
  return value.toLowerCase().startsWith('::ffff:') && value.includes('.') ? value.slice('::ffff:'.length) : value;
};

/**
 * An API Gateway HTTP API (payload format 2.0) event, as API Gateway builds it: header names
 * lower-cased, repeated query parameters joined by commas in queryStringParameters.
 */
export function buildHttpEvent(input: EventInput): HttpEvent {
  const headers = Object.fromEntries(Object.entries(input.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
  const rawQueryString = input.rawQueryString ?? '';
  const queryStringParameters: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(rawQueryString)) {
    queryStringParameters[name] = name in queryStringParameters ? `${queryStringParameters[name]},${value}` : value;
  }
  const now = new Date();
  return {
    version: '2.0',
    routeKey: input.routeKey,
    rawPath: input.path,
    rawQueryString,
    headers,
    ...(rawQueryString ? { queryStringParameters } : {}),
    ...(input.pathParameters ? { pathParameters: input.pathParameters } : {}),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? '127.0.0.1',
      domainPrefix: 'local',
      http: {
        method: input.method,
        path: input.path,
        protocol: 'HTTP/1.1',
        sourceIp: input.sourceIp ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: input.routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(input.body !== undefined && input.body !== '' ? { body: input.body } : {}),
    isBase64Encoded: false,
  };
}

/** A Lambda context good enough for local invocation. */
export function localContext(functionName: string): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '256',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => 29_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
