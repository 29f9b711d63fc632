/**
 * Owners' notification endpoints (docs/alerts.md): URLs that receive the organization's events
 * (`credits.balance_low`, `spending_limit.threshold_reached`, `job.completed`), each signed with
 * the endpoint's own secret and delivered like a job's webhook, through the one delivery path
 * (lib/webhooks/delivery.ts): the same signature, retries, deadline and address checks.
 *
 * An event is `{ id ("evt_…"), type, created_at, organization_id, data }`. Its delivery to one
 * endpoint is written once, conditionally, under the event's id: an event produced twice (a
 * stream record delivered again, two consumers at once) is one delivery, sent once.
 */
import { randomUUID } from 'node:crypto';
import { auditSourceOf } from '../auth/access.ts';
import { cursorSigningKey } from '../config.ts';
import {
  claimDelivery,
  createEndpoint,
  deleteEndpoint,
  type EndpointDeliveryRecord,
  EndpointLimitReached,
  findDelivery,
  getDelivery,
  getEndpoint,
  listDeliveriesPage,
  listEndpoints,
  listEndpointsPage,
  putDelivery,
  recordDelivery,
  reopenDelivery,
  type WebhookEndpointRecord,
} from '../db/webhook-endpoints.ts';
import { notFound, validationFailed, webhookLimitReached } from '../errors.ts';
import type { Caller } from '../model.ts';
import { openCursor, sealCursor } from '../signed-cursor.ts';
import { checkWebhookUrl } from '../webhooks/addresses.ts';
import { type DeliveryMessage, type DeliverySource, sendDelivery } from '../webhooks/delivery.ts';
import { newWebhookSecret } from '../webhooks/signature.ts';
import { asOwner, requireOwner } from '../workspace/owners.ts';

/** The events an endpoint can subscribe to (`["*"]`: all of them, and those added later). */
export const EVENT_TYPES = [
  'credits.balance_low',
  'spending_limit.threshold_reached',
  'job.completed',
  'credits.expiring',
  'credits.expired',
  'credits.purchased',
  'credits.reversed',
  'auto_recharge.succeeded',
  'auto_recharge.failed',
  'auto_recharge.action_required',
  'auto_recharge.disabled',
  'auto_recharge.cap_reached',
  'auto_recharge.deferred',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
/** What `POST …/{webhook_id}/test` sends, whatever the endpoint subscribes to. */
export const TEST_EVENT_TYPE = 'webhook.test';

/** Endpoints per organization, at most. */
export const MAX_ENDPOINTS = 10;

export interface WebhookEvent {
  /** `evt_…`: the `webhook-id` of every attempt to every endpoint. */
  id: string;
  type: EventType | typeof TEST_EVENT_TYPE;
  created_at: string;
  organization_id: string;
  data: unknown;
}

export interface EndpointView {
  id: string;
  url: string;
  events: string[];
  created_at: string;
}

export interface DeliveryView {
  id: string;
  type: string;
  status: EndpointDeliveryRecord['status'];
  attempts: number;
  last_status_code: number | null;
  next_attempt_at: string | null;
  created_at: string;
}

const viewOf = (endpoint: WebhookEndpointRecord): EndpointView => ({
  id: endpoint.id,
  url: endpoint.url,
  events: endpoint.events,
  created_at: endpoint.created_at,
});

export const deliveryViewOf = (delivery: EndpointDeliveryRecord): DeliveryView => ({
  id: delivery.id,
  type: delivery.type,
  status: delivery.status,
  attempts: delivery.attempts,
  last_status_code: delivery.last_status_code,
  next_attempt_at: delivery.next_attempt_at,
  created_at: delivery.created_at,
});

const newId = (prefix: string): string => `${prefix}${randomUUID().replaceAll('-', '')}`;

/**
 * Owners only. The URL is checked as a job's webhook URL is (https, a public address after
 * resolution; 400 naming `url`); the endpoint is written with the organization's count in one
 * transaction, so that the eleventh is refused however many are created at once.
 */
export async function createWebhookEndpoint(
  caller: Caller,
  orgId: string,
  request: { url: string; events: string[] },
  now = new Date(),
): Promise<EndpointView & { secret: string }> {
  await requireOwner(caller, orgId);
  try {
    await checkWebhookUrl(request.url);
  } catch (error) {
    throw validationFailed([{ path: ['body', 'url'], code: 'invalid_webhook_url', message: (error as Error).message }]);
  }
  const endpoint: WebhookEndpointRecord = {
    id: newId('whk_'),
    organization_id: orgId,
    url: request.url,
    events: request.events.includes('*') ? ['*'] : [...new Set(request.events)].sort(),
    secret: newWebhookSecret(),
    created_at: now.toISOString(),
  };
  try {
    await asOwner(createEndpoint(endpoint, caller.userId, MAX_ENDPOINTS, await auditSourceOf(caller), now));
  } catch (error) {
    if (error instanceof EndpointLimitReached) throw webhookLimitReached(MAX_ENDPOINTS);
    throw error;
  }
  return { ...viewOf(endpoint), secret: endpoint.secret };
}

export interface Page {
  limit: number;
  cursor?: string | undefined;
}

/** Opens a page cursor of `scope`, or answers 400 naming `cursor`. */
function position(query: Page, scope: string): string | undefined {
  if (query.cursor === undefined) return undefined;
  const opened = openCursor(query.cursor, cursorSigningKey(), scope);
  if ('problem' in opened) throw validationFailed([{ path: ['query', 'cursor'], code: 'invalid_cursor', message: opened.problem }]);
  return opened.position;
}

/** Owners only: the organization's endpoints by id, never a secret. */
export async function listWebhookEndpoints(
  caller: Caller,
  orgId: string,
  query: Page,
): Promise<{ webhooks: EndpointView[]; next_cursor: string | null; has_more: boolean }> {
  const scope = `webhooks:${orgId}`;
  const after = position(query, scope);
  const [, page] = await Promise.all([requireOwner(caller, orgId), listEndpointsPage(orgId, query.limit, after)]);
  const last = page.endpoints.at(-1);
  return {
    webhooks: page.endpoints.map(viewOf),
    next_cursor: page.hasMore && last ? sealCursor(scope, last.id, cursorSigningKey()) : null,
    has_more: page.hasMore,
  };
}

/**
 * Owners only: the endpoint and its deliveries are gone (a delivery still queued sends nothing),
 * with its `webhook.deleted` event; an unknown one 404. The endpoint is read beside the owner check.
 */
export async function deleteWebhookEndpoint(caller: Caller, orgId: string, webhookId: string, now = new Date()): Promise<void> {
  const [, endpoint] = await Promise.all([requireOwner(caller, orgId), getEndpoint(orgId, webhookId)]);
  if (!(await asOwner(deleteEndpoint(endpoint, caller.userId, await auditSourceOf(caller), now)))) throw notFound();
}

/** An owner's endpoint, or 404. */
async function ownedEndpoint(caller: Caller, orgId: string, webhookId: string): Promise<WebhookEndpointRecord> {
  const [, endpoint] = await Promise.all([requireOwner(caller, orgId), getEndpoint(orgId, webhookId)]);
  if (!endpoint) throw notFound();
  return endpoint;
}

/** Owners only: queues a `webhook.test` event to the endpoint, whatever it subscribes to; answers its delivery. */
export async function sendTestEvent(caller: Caller, orgId: string, webhookId: string, now = new Date()): Promise<DeliveryView> {
  const endpoint = await ownedEndpoint(caller, orgId, webhookId);
  const event: WebhookEvent = {
    id: newId('evt_'),
    type: TEST_EVENT_TYPE,
    created_at: now.toISOString(),
    organization_id: orgId,
    data: { webhook_id: endpoint.id },
  };
  await deliverTo(endpoint, event, now);
  return {
    id: event.id,
    type: event.type,
    status: 'pending',
    attempts: 0,
    last_status_code: null,
    next_attempt_at: null,
    created_at: event.created_at,
  };
}

/** Owners only: the endpoint's deliveries, newest first. */
export async function listEndpointDeliveries(
  caller: Caller,
  orgId: string,
  webhookId: string,
  query: Page,
): Promise<{ deliveries: DeliveryView[]; next_cursor: string | null; has_more: boolean }> {
  const scope = `webhook-deliveries:${webhookId}`;
  const after = position(query, scope);
  await ownedEndpoint(caller, orgId, webhookId);
  const page = await listDeliveriesPage(webhookId, query.limit, after);
  return {
    deliveries: page.deliveries.map(deliveryViewOf),
    next_cursor: page.hasMore && page.lastSk ? sealCursor(scope, page.lastSk, cursorSigningKey()) : null,
    has_more: page.hasMore,
  };
}

const messageFor = (endpoint: WebhookEndpointRecord, event: Pick<WebhookEvent, 'id' | 'created_at'>, attempt: number): DeliveryMessage => ({
  kind: 'delivery',
  eventId: event.id,
  orgId: endpoint.organization_id,
  subject: { type: 'endpoint', webhookId: endpoint.id, createdAt: event.created_at },
  attempt,
});

/**
 * Writes the event's delivery to one endpoint (once: the write is conditional on the event's
 * id) and queues its first attempt. When the delivery exists already and no attempt was made,
 * the first attempt is queued again: whoever wrote it may have died before queuing it.
 */
async function deliverTo(endpoint: WebhookEndpointRecord, event: WebhookEvent, now: Date): Promise<void> {
  const body = JSON.stringify(event);
  const fresh = await putDelivery(
    { webhook_id: endpoint.id, id: event.id, type: event.type, created_at: event.created_at, body },
    now.getTime(),
  );
  if (!fresh) {
    const existing = await getDelivery(endpoint.id, event.created_at, event.id);
    if (existing?.status !== 'pending' || existing.attempts > 0) return;
  }
  await sendDelivery(messageFor(endpoint, event, 1));
}

const subscribes = (endpoint: WebhookEndpointRecord, type: string): boolean =>
  endpoint.events.includes('*') || endpoint.events.includes(type);

/** The endpoints of an organization that subscribe to events of `type`. */
export const subscribedEndpoints = async (orgId: string, type: string): Promise<WebhookEndpointRecord[]> =>
  (await listEndpoints(orgId)).filter((endpoint) => subscribes(endpoint, type));

/**
 * Sends `event` to every endpoint of its organization that subscribes to its type (`endpoints`:
 * those, when the caller looked them up already). Idempotent: the same event (the same id and
 * time) again adds no delivery.
 */
export async function publishEvent(event: WebhookEvent, now = new Date(), endpoints?: WebhookEndpointRecord[]): Promise<void> {
  const to = endpoints ?? (await subscribedEndpoints(event.organization_id, event.type));
  await Promise.all(to.map((endpoint) => deliverTo(endpoint, event, now)));
}

/** Why a resend did not happen. */
export type ResendRefusal = 'no_such_endpoint' | 'no_such_delivery' | 'still_pending';

/**
 * Queues a finished delivery (delivered or failed) once more from its first attempt, the same
 * event under the same `webhook-id` (the operator's resend, `admin webhooks resend`): the
 * delivery as reopened, or why not. A pending delivery is refused: its next attempt is queued
 * already, and a second chain of attempts would run beside it.
 */
export async function resendDelivery(
  orgId: string,
  webhookId: string,
  eventId: string,
): Promise<{ resent: DeliveryView } | { refused: ResendRefusal; delivery?: DeliveryView }> {
  const [endpoint, delivery] = await Promise.all([getEndpoint(orgId, webhookId), findDelivery(webhookId, eventId)]);
  if (!endpoint) return { refused: 'no_such_endpoint' };
  if (!delivery) return { refused: 'no_such_delivery' };
  const reopened = await reopenDelivery(webhookId, delivery.created_at, eventId);
  if (!reopened) return { refused: 'still_pending', delivery: deliveryViewOf(delivery) };
  await sendDelivery(messageFor(endpoint, reopened, 1));
  return { resent: deliveryViewOf(reopened) };
}

/** The delivery source of endpoints' events: what is sent is the delivery's stored event, to the endpoint's URL with its secret. */
export const endpointDeliverySource: DeliverySource = {
  async prepare(message, deadlineMs) {
    if (message.subject.type !== 'endpoint') return null;
    const { webhookId, createdAt } = message.subject;
    const [endpoint, delivery] = await Promise.all([
      getEndpoint(message.orgId, webhookId),
      claimDelivery(webhookId, createdAt, message.eventId, message.attempt, Date.now(), deadlineMs),
    ]);
    // The endpoint deleted, the delivery over, or this attempt made or under way already.
    if (!endpoint || !delivery) return null;
    return { url: endpoint.url, secret: endpoint.secret, body: delivery.body };
  },
  async record(message, outcome) {
    if (message.subject.type !== 'endpoint') return;
    await recordDelivery(message.subject.webhookId, message.subject.createdAt, message.eventId, outcome);
  },
};
