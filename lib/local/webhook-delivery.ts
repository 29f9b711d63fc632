/**
 * `npm start`'s stand-in for the deployed delivery function (infra/webhooks.ts): the same handler
 * (lib/alerts/sources.ts) on this process's embedded webhooks queue, a queue and consumer of
 * their own so that a slow receiver never holds a job worker. WEBHOOK_DELIVERY_CONCURRENCY
 * attempts at once, at most WEBHOOK_DELIVERIES_PER_ORGANIZATION of one organization: however many
 * slow receivers some organizations have, the others' deliveries find a free slot. Each message
 * runs as an invocation of its own; its attempt ends before its visibility timeout
 * (JOBS_VISIBILITY_TIMEOUT_SECONDS) does. Returns the function that stops it.
 */

import { handleDeliveryMessage } from '../alerts/sources.ts';
import { jobsConfig, webhooksConfig } from '../config.ts';
import type { DeliveryMessage } from '../webhooks/delivery.ts';
import { embeddedQueue } from './embedded-queue.ts';

export function startWebhookDelivery(
  /** How each message runs (npm start: as an invocation of its own). */
  run: <T>(work: () => Promise<T>) => Promise<T> = (work) => work(),
  options: { visibilityTimeoutMs?: number; backoffMs?: number } = {},
): () => Promise<void> {
  const settings = webhooksConfig();
  return embeddedQueue<DeliveryMessage>('webhooks').consume(
    (message, receipt) =>
      run(() => handleDeliveryMessage(message, receipt, options.backoffMs === undefined ? {} : { backoffMs: options.backoffMs })),
    {
      concurrency: settings.concurrency,
      perGroup: settings.perOrganization,
      visibilityTimeoutMs: options.visibilityTimeoutMs ?? jobsConfig().visibilityTimeoutSeconds * 1000,
    },
  );
}
