/**
 * The stack's SQS queues, made one way: encrypted by SQS, TLS only. A work queue has a
 * dead-letter queue that keeps what it gave up on for 14 days, as long as SQS keeps anything.
 */
import { Duration } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/** A queue that only keeps what something gave up on (a dead-letter queue, an on-failure destination). */
export const holdingQueue = (scope: Construct, id: string): Queue =>
  new Queue(scope, id, { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: Duration.days(14) });

/** A work queue (`Queue`) and its dead-letter queue (`DeadLetterQueue`), in `scope`. */
export function workQueue(
  scope: Construct,
  { visibilityTimeout, maxReceiveCount }: { visibilityTimeout: Duration; maxReceiveCount: number },
): { queue: Queue; deadLetterQueue: Queue } {
  const deadLetterQueue = holdingQueue(scope, 'DeadLetterQueue');
  const queue = new Queue(scope, 'Queue', {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    visibilityTimeout,
    retentionPeriod: Duration.days(4),
    deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount },
  });
  return { queue, deadLetterQueue };
}
