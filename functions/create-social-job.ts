import * as z from 'zod/mini';
import { cacheControl, maxAgeOf } from '../lib/http/cache-control.ts';
import { endpoint, Reply } from '../lib/http/endpoint.ts';
import { FIELDS_RULE, fieldsParam } from '../lib/http/fields-param.ts';
import { jsonBody } from '../lib/http/json-body.ts';
import { idempotencyKey, jobMaxCreditsHeader, maxCreditsField, operationParam, organizationId } from '../lib/http/params.ts';
import { createSocialJob, MAX_JOB_INPUTS } from '../lib/jobs/create-job.ts';
import { jobSchema } from '../lib/jobs/schemas.ts';

const body = z.strictObject({
  inputs: z
    .array(z.unknown())
    .check(
      z.minLength(1, `must hold 1 to ${MAX_JOB_INPUTS} inputs`),
      z.maxLength(MAX_JOB_INPUTS, `must hold 1 to ${MAX_JOB_INPUTS} inputs`),
    )
    .register(z.globalRegistry, {
      description: `1 to ${MAX_JOB_INPUTS} inputs of the operation, each as its own run would take it (see the operation's path for its schema); all are validated before the job is created`,
      examples: [[{ handle: 'nasa' }, { handle: 'nike' }]],
    }),
  fields: z.optional(
    fieldsParam(
      `Every item's \`output\` keeps only these parts of the operation's output, as the run's \`fields\` parameter does. ${FIELDS_RULE} Items are charged the same; shown on the job.`,
    ),
  ),
  max_credits: z.optional(
    maxCreditsField(
      'The most the whole job may be charged, in credits (0 to 1,000,000; or the `Max-Credits` header). The charges that stand count: a refunded item gives its credits back, a cached item counts at its cached cost. An item that would take the job past it fails uncharged with `max_credits_exceeded` (`data: { cost, max_credits, remaining }`); the other items run, and the job ends normally. Shown on the job.',
    ),
  ),
  webhook_url: z.optional(
    z
      .string()
      .check(z.maxLength(2048, 'must be at most 2048 characters'))
      .register(z.globalRegistry, {
        description:
          'Receives `POST {"type": "job.completed", "data": <job>}` when the job ends, signed per Standard Webhooks with the `webhook_secret` of the 202. `https` only, to a public address.',
        examples: ['https://example.com/hooks/jobs'],
      }),
  ),
});

/** Accepted: the job runs later. */
export const successStatus = 202;
export const responseHeaders = ['Location', 'Idempotent-Replayed', 'Cache-Control'];

/** The 202 body: the job, and its webhook's secret when a webhook was given (for the OpenAPI document). */
export const responseSchema = z.object({
  ...jobSchema.shape,
  webhook_secret: z.optional(z.string()).register(z.globalRegistry, {
    description: 'the key that signs the webhook (`whsec_…`): in this answer (and its Idempotency-Key replays) only; keep it secret',
  }),
});

/**
 * POST /social/{operation}/jobs?organization_id= — editors and owners (and editor API keys): 202
 * with the job and `Location`; its items run on the queue, each charged like a single run.
 */
export const handler = endpoint(
  {
    schemas: {
      path: z.object({
        operation: operationParam('the operation every item runs, one of those `GET /social/operations` lists'),
      }),
      query: z.object({ organization_id: organizationId }),
      headers: z.object({
        'idempotency-key': z.optional(idempotencyKey),
        'cache-control': z.optional(cacheControl),
        'max-credits': z.optional(jobMaxCreditsHeader),
      }),
      body,
    },
    jsonBody,
  },
  async ({ path, query, headers, body }, context) => {
    const { job, replayed } = await createSocialJob({
      caller: context.caller,
      orgId: query.organization_id,
      operationName: path.operation,
      inputs: body.inputs,
      webhookUrl: body.webhook_url,
      fields: body.fields === undefined ? undefined : { text: body.fields, at: ['body', 'fields'] },
      maxCredits: [
        { value: body.max_credits, at: ['body', 'max_credits'] },
        { value: headers['max-credits'], at: ['header', 'max-credits'] },
      ],
      idempotencyKey: headers['idempotency-key'],
      maxAgeSeconds: headers['cache-control'] === undefined ? undefined : maxAgeOf(headers['cache-control']),
    });
    return new Reply(
      job,
      {
        Location: `/social/jobs/${job.id}`,
        // The answer carries the webhook's secret.
        'Cache-Control': 'no-store',
        ...(replayed ? { 'Idempotent-Replayed': 'true' } : {}),
      },
      202,
    );
  },
);
