import * as z from 'zod/mini';
import { withBillingUrl } from '../lib/billing/billing-url.ts';
import { baseUrl } from '../lib/http/base-url.ts';
import { cacheControl, maxAgeOf } from '../lib/http/cache-control.ts';
import { endpoint, Reply } from '../lib/http/endpoint.ts';
import { FIELDS_RULE, fieldsParam } from '../lib/http/fields-param.ts';
import { jsonBody } from '../lib/http/json-body.ts';
import { idempotencyKey, maxCreditsHeader, operationParam, organizationId } from '../lib/http/params.ts';
import { runSocialOperation } from '../lib/social/run.ts';

/**
 * POST /social/{operation}?organization_id=&fields= — editors and owners. Body: the operation
 * input; 200 body: its output (only the `fields` asked for), with Credits-Charged and
 * Credits-Remaining headers.
 */
export const handler = endpoint(
  {
    schemas: {
      path: z.object({
        operation: operationParam('the operation to run, one of those `GET /social/operations` lists'),
      }),
      query: z.object({
        organization_id: organizationId,
        fields: z.optional(
          fieldsParam(
            `Answer only these parts of the output. ${FIELDS_RULE} Same charge as without it. Not part of the cache key: a cached result (\`Cache-Control: max-age\`) can be read again with other fields at the cached cost. Part of a request's identity for \`Idempotency-Key\`: another \`fields\` with the same key is a 409 \`idempotency_key_reused\`.`,
          ),
        ),
      }),
      headers: z.object({
        'idempotency-key': z.optional(idempotencyKey),
        'cache-control': z.optional(cacheControl),
        'max-credits': z.optional(maxCreditsHeader),
      }),
      // The operation's own schema validates the body once the operation is known.
      body: z.unknown().register(z.globalRegistry, {
        description: "The operation's input, an object: see the operation's own path (`POST /social/<name>`) for its schema.",
      }),
    },
    jsonBody,
  },
  async ({ path, query, headers, body }, context, event) => {
    const result = await runSocialOperation({
      caller: context.caller,
      orgId: query.organization_id,
      operationName: path.operation,
      input: body,
      idempotencyKey: headers['idempotency-key'],
      maxAgeSeconds: headers['cache-control'] === undefined ? undefined : maxAgeOf(headers['cache-control']),
      fields: query.fields === undefined ? undefined : { text: query.fields, at: ['query', 'fields'] },
      maxCredits: headers['max-credits'],
      requestId: context.requestId,
      deadlineMs: context.deadlineMs,
    }).catch((error: unknown) => {
      // Out of credits: where an owner buys them (data.billing_url).
      throw withBillingUrl(error, baseUrl(event), query.organization_id);
    });
    return new Reply(result.output, {
      'Credits-Charged': String(result.charged),
      ...(result.remaining === undefined ? {} : { 'Credits-Remaining': String(result.remaining) }),
      ...(result.replayed ? { 'Idempotent-Replayed': 'true' } : {}),
      ...(result.chargeId === undefined ? {} : { 'Charge-Id': result.chargeId }),
      ...(result.cacheStatus === undefined ? {} : { 'Cache-Status': result.cacheStatus }),
      ...(result.ageSeconds === undefined ? {} : { Age: String(result.ageSeconds) }),
      ...(result.sampleData ? { 'Sample-Data': 'true' } : {}),
      ...(result.provider === undefined ? {} : { 'Social-Provider': result.provider }),
    });
  },
);

/**
 * The 200 body, for the API description: the operation's output, an object. Each operation's
 * own output schema is in the catalog; the document lists it under POST /social/<name>.
 */
export const responseSchema = z.record(z.string(), z.unknown());

/** Headers of the 200 answer (described in lib/openapi/headers.ts). */
export const responseHeaders = [
  'Credits-Charged',
  'Credits-Remaining',
  'Idempotent-Replayed',
  'Charge-Id',
  'Cache-Status',
  'Age',
  'Sample-Data',
  'Social-Provider',
] as const;
