/**
 * The webhook delivery function: the webhooks queue's event source mapping invokes it with a batch
 * of delivery messages (infra/webhooks.ts). Not a route: no HTTP, no caller. A function of its own,
 * on a queue of its own, so that a slow receiver never holds the workers that run job items
 * (docs/jobs.md, "Webhooks"). Each message is one attempt (lib/webhooks/delivery.ts), the batch's
 * attempts at once; each attempt ends before this invocation does (its deadline is taken from the
 * time left), and the invocation before the queue's visibility timeout (infra/webhooks.ts), so an
 * attempt is never made twice at once. The answer lists the messages to deliver again (partial
 * batch failures, ReportBatchItemFailures).
 */
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { handleDeliveryMessage } from '../lib/alerts/sources.ts';
import { logError, logger } from '../lib/log.ts';
import type { DeliveryMessage } from '../lib/webhooks/delivery.ts';

export const handler = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
  logger.resetKeys();
  logger.addContext(context);
  const deadlineMs = Date.now() + context.getRemainingTimeInMillis();
  const outcomes = await Promise.all(
    event.Records.map(async (record) => {
      try {
        return await handleDeliveryMessage(JSON.parse(record.body) as DeliveryMessage, { deadlineMs });
      } catch (error) {
        logError('delivery message failed; it is delivered again after its visibility timeout', error, { message_id: record.messageId });
        return false;
      }
    }),
  );
  return {
    batchItemFailures: event.Records.filter((_, i) => !outcomes[i]).map((record) => ({ itemIdentifier: record.messageId })),
  };
};
