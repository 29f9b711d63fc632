/**
 * What the webhooks queue's consumer runs for each message (functions/deliver-webhooks.ts
 * deployed, lib/local/webhook-delivery.ts under npm start): the delivery of its event, through
 * the source its subject names. Here, above both producers (a job's end and the owners'
 * endpoints): lib/webhooks/ delivers whatever it is handed and knows neither.
 */
import { jobWebhookSource } from '../jobs/job-ended.ts';
import type { Receipt } from '../queues/queue.ts';
import { type DeliveryMessage, type DeliverySource, deliver } from '../webhooks/delivery.ts';
import { endpointDeliverySource } from './endpoints.ts';

const SOURCES: Record<DeliveryMessage['subject']['type'], DeliverySource> = {
  job: jobWebhookSource,
  endpoint: endpointDeliverySource,
};

/** Handles one delivery message; true acknowledges it, false leaves it to be delivered again. */
export function handleDeliveryMessage(
  message: DeliveryMessage,
  receipt: Receipt,
  options: { now?: () => number; backoffMs?: number } = {},
): Promise<boolean> {
  const source = SOURCES[message.subject?.type];
  if (!source) throw new Error(`a delivery message of an unknown subject: ${JSON.stringify(message.subject)}`);
  return deliver(message, source, { ...options, deadlineMs: receipt.deadlineMs });
}
