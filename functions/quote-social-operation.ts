import * as z from 'zod/mini';
import { fieldsWithBillingUrl } from '../lib/billing/billing-url.ts';
import { baseUrl } from '../lib/http/base-url.ts';
import { cacheControl, maxAgeOf } from '../lib/http/cache-control.ts';
import { endpoint } from '../lib/http/endpoint.ts';
import { fieldsParam } from '../lib/http/fields-param.ts';
import { jsonBody } from '../lib/http/json-body.ts';
import { maxCreditsHeader, operationParam, organizationId } from '../lib/http/params.ts';
import { OPERATION_NAMES } from '../lib/social/catalog/names.ts';
import { quoteSocialOperation } from '../lib/social/quote.ts';

/**
 * POST /social/{operation}/quote?organization_id= — any member. Body: the operation input, as
 * for a run. 200: what the run would cost now and whether it would be refused; nothing charged,
 * the provider not called, never 402.
 */
export const handler = endpoint(
  {
    schemas: {
      path: z.object({
        operation: operationParam('the operation to quote, one of those `GET /social/operations` lists'),
      }),
      query: z.object({
        organization_id: organizationId,
        fields: z.optional(
          fieldsParam(
            "The run's `fields`, validated as the run validates them (400 with the same issues); the quote is the same with or without them, as the charge is.",
          ),
        ),
      }),
      headers: z.object({ 'cache-control': z.optional(cacheControl), 'max-credits': z.optional(maxCreditsHeader) }),
      body: z.unknown().register(z.globalRegistry, {
        description: "The operation's input, validated as a run validates it (400 with the same issues).",
      }),
    },
    jsonBody,
  },
  async ({ path, query, headers, body }, context, event) => {
    const quote = await quoteSocialOperation({
      caller: context.caller,
      orgId: query.organization_id,
      operationName: path.operation,
      input: body,
      maxAgeSeconds: headers['cache-control'] === undefined ? undefined : maxAgeOf(headers['cache-control']),
      fields: query.fields === undefined ? undefined : { text: query.fields, at: ['query', 'fields'] },
      maxCredits: headers['max-credits'],
    });
    // The refusal is the run's error body: out of credits, it names where to buy them, as the run's does.
    return quote.refusal ? { ...quote, refusal: fieldsWithBillingUrl(quote.refusal, baseUrl(event), query.organization_id) } : quote;
  },
);

/** The 200 body, for the API description. */
export const responseSchema = z.object({
  operation: z.enum(OPERATION_NAMES),
  cost: z.int().register(z.globalRegistry, { description: 'credits the run would be charged now' }),
  balance: z.int().register(z.globalRegistry, { description: "the organization's balance" }),
  allowed: z.boolean().register(z.globalRegistry, { description: 'whether the run would be charged and run now' }),
  refusal: z.nullable(
    z
      .object({ code: z.string(), message: z.string(), data: z.record(z.string(), z.unknown()) })
      .register(z.globalRegistry, { description: 'what the run would answer instead (its error body without `request_id`)' }),
  ),
  cached: z.boolean().register(z.globalRegistry, {
    description: 'whether a cached result would answer the run (asked with `Cache-Control: max-age`)',
  }),
});
