import * as z from 'zod/mini';
import { createWebhookEndpoint, EVENT_TYPES } from '../lib/alerts/endpoints.ts';
import { webhookSchema } from '../lib/alerts/schemas.ts';
import { endpoint, Reply } from '../lib/http/endpoint.ts';
import { jsonBody } from '../lib/http/json-body.ts';
import { organizationId } from '../lib/http/params.ts';

const EVENTS_RULE = `must be a non-empty list of distinct event types (${EVENT_TYPES.join(', ')}) or ["*"] for all`;

const body = z.strictObject({
  url: z
    .string()
    .check(z.maxLength(2048, 'must be at most 2048 characters'))
    .register(z.globalRegistry, {
      description: 'Receives each event as a signed `POST` (Standard Webhooks). `https` only, to a public address.',
      examples: ['https://example.com/hooks/alerts'],
    }),
  events: z
    .array(z.enum([...EVENT_TYPES, '*'], { error: EVENTS_RULE }))
    .check(
      z.minLength(1, EVENTS_RULE),
      z.maxLength(EVENT_TYPES.length + 1, EVENTS_RULE),
      z.refine((events) => new Set(events).size === events.length && (!events.includes('*') || events.length === 1), EVENTS_RULE),
    )
    .register(z.globalRegistry, { description: 'the event types to receive, or `["*"]` for every type (those added later included)' }),
});

export const successStatus = 201;
export const responseHeaders = ['Cache-Control'];

/** The 201 body: the endpoint and its secret, shown this once (for the OpenAPI document). */
export const responseSchema = z.object({
  ...webhookSchema.shape,
  secret: z.string().register(z.globalRegistry, {
    description: 'the signing secret (`whsec_…`, Standard Webhooks): shown in this answer only, never again',
  }),
});

/** POST /organizations/{organization_id}/webhooks — owners: 201 with the endpoint and its secret (shown once). */
export const handler = endpoint(
  { schemas: { path: z.object({ organization_id: organizationId }), body }, jsonBody },
  async ({ path, body }, context) => {
    const created = await createWebhookEndpoint(context.caller, path.organization_id, body);
    return new Reply(created, { 'Cache-Control': 'no-store' }, 201);
  },
);
