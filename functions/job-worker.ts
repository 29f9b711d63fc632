/**
 * The job worker's function: the SQS event source mapping of the jobs queue invokes it with a
 * batch of messages (infra/jobs.ts). Not a route: no HTTP, no caller. Each message is handled by
 * the same code `npm start` runs on its embedded queue (lib/jobs/worker.ts), a few at a time; the
 * answer lists the messages to deliver again (partial batch failures, ReportBatchItemFailures),
 * so one item left for later never makes the others of its batch run twice.
 */
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { JobMessage } from '../lib/jobs/queue.ts';
import { handleJobMessage } from '../lib/jobs/worker.ts';
import { logError, logger } from '../lib/log.ts';

/** Time kept back from the function's timeout for the results being written. */
const FINISH_RESERVE_MS = 5_000;

export const handler = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
  // Keys a run appends (operation, credits) must not outlive the invocation. Within a batch the
  // runs are concurrent and share the logger's keys: each line names its job and item itself.
  logger.resetKeys();
  logger.addContext(context);
  const deadlineMs = Date.now() + context.getRemainingTimeInMillis() - FINISH_RESERVE_MS;
  const outcomes = await Promise.all(
    event.Records.map(async (record) => {
      try {
        return await handleJobMessage(JSON.parse(record.body) as JobMessage, { deadlineMs });
      } catch (error) {
        logError('job message failed; it is delivered again after its visibility timeout', error, { message_id: record.messageId });
        return false;
      }
    }),
  );
  return {
    batchItemFailures: event.Records.filter((_, i) => !outcomes[i]).map((record) => ({ itemIdentifier: record.messageId })),
  };
};
