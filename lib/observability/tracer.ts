import type { Tracer } from '@aws-lambda-powertools/tracer';
import type { MiddlewareObj } from '@middy/core';
import { serviceName } from '../config.ts';

/**
 * Powertools Tracer is a build-time choice, because its X-Ray SDK costs every cold start
 * (figures in docs/observability.md). The bundler replaces `process.env.WORKSPACE_TRACER`
 * with a constant (infra/bundling.ts; the stack's `tracer` context): when it is not "true",
 * this branch is dead code and neither the Tracer nor the X-Ray SDK is in the bundle.
 * Lambda's active tracing still records every invocation either way. Under tsx and vitest
 * the variable is unset: no Tracer.
 */
const powertools =
  process.env.WORKSPACE_TRACER === 'true'
    ? await Promise.all([import('@aws-lambda-powertools/tracer'), import('@aws-lambda-powertools/tracer/middleware')])
    : undefined;

const tracer: Tracer | undefined = powertools ? new powertools[0].Tracer({ serviceName: serviceName() }) : undefined;

/** The handler's subsegment (cold start, errors); responses are not recorded: they carry customer data. */
export const tracingMiddleware = (): MiddlewareObj[] =>
  tracer && powertools ? [powertools[1].captureLambdaHandler(tracer, { captureResponse: false })] : [];

/** An AWS SDK v3 client whose calls become X-Ray subsegments when the Tracer is bundled. */
export const traced = <T>(client: T): T => (tracer ? tracer.captureAWSv3Client(client) : client);
