/**
 * What an operator sees and does of an organization's notification endpoints (docs/alerts.md):
 * its endpoints (never a secret) with its alert settings, an endpoint's deliveries (a failed one
 * is what an owner asks about), and the resend of a finished delivery once its receiver is fixed.
 */

import { type DeliveryView, deliveryViewOf, type EndpointView, resendDelivery } from '../alerts/endpoints.ts';
import { getAlertSettings } from '../db/alert-settings.ts';
import { type EndpointDeliveryRecord, getEndpoint, listDeliveriesWhere, listEndpoints } from '../db/webhook-endpoints.ts';
import { DeliveryPendingError, NoSuchWebhookError } from '../errors.ts';
import { requireOrganization } from './organizations.ts';

export interface WebhooksReport {
  organization_id: string;
  /** What the organization is alerted of (`GET …/alerts`). */
  alerts: { low_balance: number | null; thresholds: number[] };
  webhooks: EndpointView[];
}

/** The organization's endpoints by id, without their secrets, and its alert settings (three reads in parallel). */
export async function listOrganizationWebhooks(orgId: string): Promise<WebhooksReport> {
  const [, alerts, endpoints] = await Promise.all([requireOrganization(orgId), getAlertSettings(orgId), listEndpoints(orgId)]);
  return {
    organization_id: orgId,
    alerts,
    webhooks: endpoints.map(({ id, url, events, created_at }) => ({ id, url, events, created_at })),
  };
}

export interface DeliveriesReport {
  organization_id: string;
  webhook_id: string;
  url: string;
  deliveries: DeliveryView[];
  /** Older deliveries (of that status) were left out: ask for a larger --limit. */
  has_more: boolean;
}

/** Refuses (NoSuchWebhookError) unless the organization has that endpoint. */
async function requireEndpoint(orgId: string, webhookId: string) {
  const [, endpoint] = await Promise.all([requireOrganization(orgId), getEndpoint(orgId, webhookId)]);
  if (!endpoint) throw new NoSuchWebhookError(`${orgId} has no webhook endpoint ${webhookId}`);
  return endpoint;
}

/** An endpoint's deliveries, newest first, at most `limit`, only those of `status` when given. */
export async function listEndpointDeliveries(
  orgId: string,
  webhookId: string,
  options: { limit: number; status?: EndpointDeliveryRecord['status'] | undefined },
): Promise<DeliveriesReport> {
  const endpoint = await requireEndpoint(orgId, webhookId);
  const page = await listDeliveriesWhere(webhookId, options.limit, options.status);
  return {
    organization_id: orgId,
    webhook_id: webhookId,
    url: endpoint.url,
    deliveries: page.deliveries.map(deliveryViewOf),
    has_more: page.hasMore,
  };
}

/**
 * Sends a finished delivery (delivered or failed) again from its first attempt: the same event,
 * the same `webhook-id` (a receiver that deduplicates by it drops it if it had it already). A
 * pending one is refused: its attempts are still under way.
 */
export async function resendEndpointDelivery(orgId: string, webhookId: string, eventId: string): Promise<DeliveryView> {
  await requireOrganization(orgId);
  const outcome = await resendDelivery(orgId, webhookId, eventId);
  if ('resent' in outcome) return outcome.resent;
  switch (outcome.refused) {
    case 'no_such_endpoint':
      throw new NoSuchWebhookError(`${orgId} has no webhook endpoint ${webhookId}`);
    case 'no_such_delivery':
      throw new NoSuchWebhookError(`webhook endpoint ${webhookId} has no delivery of event ${eventId} (deliveries are kept 30 days)`);
    case 'still_pending': {
      const { attempts = 0, next_attempt_at: next = null } = outcome.delivery ?? {};
      throw new DeliveryPendingError(
        `the delivery of ${eventId} is still pending (${attempts} attempts made${next ? `, the next at ${next}` : ''}): it can be resent once delivered or failed`,
      );
    }
  }
}
