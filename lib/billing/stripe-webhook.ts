/**
 * The webhook's order of checks (docs/funding.md, "Webhook"): a deployment without Stripe's keys
 * has no webhook (404); a body over 1 MiB is no event (413); the signature is checked on the raw
 * bytes before anything parses them (400 naming the header, nothing changed); then JSON (400
 * `invalid_json`) and the event's shape (400 naming the field); then the event is handled and
 * acknowledged, also when it names nothing here. Only a verified event that could not be recorded
 * answers a 5xx, so that Stripe sends it again.
 */
import { invalidJson, notFound, validationFailed, webhookBodyTooLarge } from '../errors.ts';
import { stripeClient } from './stripe-client.ts';
import { type EventOutcome, handleStripeEvent, type StripeEventInput } from './stripe-events.ts';
import { signatureProblem } from './stripe-signature.ts';
import { webhookSigningSecrets } from './webhook-secrets.ts';

/** Stripe's events are a few KB; a MiB leaves room for any object and refuses a flood early. */
export const MAX_WEBHOOK_BODY_BYTES = 1024 * 1024;

function eventOf(body: unknown): StripeEventInput {
  const issue = (field: string, message: string) =>
    validationFailed([{ path: ['body', ...field.split('.')], code: 'invalid_event', message }]);
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw validationFailed([{ path: ['body'], code: 'invalid_event', message: 'must be a Stripe event object' }]);
  const { id, type, data } = body as Record<string, unknown>;
  if (typeof id !== 'string' || !/^evt_[A-Za-z0-9_]+$/.test(id)) throw issue('id', 'must be an event id ("evt_…")');
  if (typeof type !== 'string' || type === '') throw issue('type', 'must be the event type, a string');
  const object = data !== null && typeof data === 'object' ? (data as Record<string, unknown>).object : undefined;
  if (object === null || typeof object !== 'object' || Array.isArray(object))
    throw issue('data.object', 'must be the object the event is about');
  return { id, type, data: { object: object as Record<string, unknown> } };
}

/** One delivery of Stripe's webhook: what it changed, or a ServiceError for the answer. */
export async function receiveStripeWebhook(rawBody: Buffer, signature: string | undefined, now = new Date()): Promise<EventOutcome> {
  const [secrets, stripe] = await Promise.all([webhookSigningSecrets(), stripeClient()]);
  if (!secrets || !stripe) throw notFound();
  if (rawBody.length > MAX_WEBHOOK_BODY_BYTES) throw webhookBodyTooLarge(MAX_WEBHOOK_BODY_BYTES);
  const problem = signatureProblem(signature, rawBody, secrets, Math.floor(now.getTime() / 1000));
  if (problem !== null) throw validationFailed([{ path: ['header', 'stripe-signature'], code: 'invalid_signature', message: problem }]);
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw invalidJson('must be a JSON document');
  }
  return handleStripeEvent(stripe, eventOf(parsed), now);
}
