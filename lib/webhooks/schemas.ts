/**
 * Notification endpoints and their deliveries as the routes answer them (for the OpenAPI
 * document): one module, so that routes sharing them import no other route's handler.
 */
import * as z from 'zod/mini';

export const webhookSchema = z.object({
  id: z.string().register(z.globalRegistry, { description: 'the endpoint id, `whk_` and 32 hex digits' }),
  url: z.string().register(z.globalRegistry, { description: 'where its events are POSTed' }),
  events: z.array(z.string()).register(z.globalRegistry, { description: 'the event types it receives (sorted), or `["*"]` for all' }),
  created_at: z.string(),
});

const nullableInt = (description: string) => z.nullable(z.int()).register(z.globalRegistry, { description });

export const deliverySchema = z.object({
  id: z.string().register(z.globalRegistry, { description: 'the event id (`evt_…`), also the `webhook-id` header of every attempt' }),
  type: z.string().register(z.globalRegistry, { description: 'the event type' }),
  status: z.enum(['pending', 'delivered', 'failed']).register(z.globalRegistry, {
    description: '`pending` while attempts remain, `delivered` on a 2xx, `failed` after the last attempt',
  }),
  attempts: z.int().register(z.globalRegistry, { description: 'attempts made so far' }),
  last_status_code: nullableInt("the receiver's status at the last attempt, null when none came back (or none was made)"),
  next_attempt_at: z
    .nullable(z.string())
    .register(z.globalRegistry, { description: 'when the next attempt is due, while `pending` after a failure' }),
  created_at: z.string().register(z.globalRegistry, { description: "the event's time" }),
});

const page = { next_cursor: z.nullable(z.string()), has_more: z.boolean() };
export const webhooksPageSchema = z.object({ webhooks: z.array(webhookSchema), ...page });
export const deliveriesPageSchema = z.object({ deliveries: z.array(deliverySchema), ...page });
