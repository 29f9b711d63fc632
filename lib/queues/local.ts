/**
 * Where a queue without a URL is found: this process's own queues, which lib/local/embedded-queue.ts
 * installs (npm start, the benches) or the tests do (test/support/setup-env.ts). Nothing deployed
 * installs any, so a deployed function without its queue's URL says so instead of keeping messages
 * in its memory. No import: installing costs nothing.
 */
import type { Queue, QueueName } from './queue.ts';

let provider: ((name: QueueName) => Queue<unknown>) | undefined;

export function useLocalQueues(provide: (name: QueueName) => Queue<unknown>): void {
  provider = provide;
}

/** This process's queue `name`, if it has its own. */
export const localQueue = (name: QueueName): Queue<unknown> | undefined => provider?.(name);
