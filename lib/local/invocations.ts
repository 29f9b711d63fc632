import { InvokeStore, InvokeStoreBase } from '@aws/lambda-invoke-store';

/**
 * The local server runs every function in one process, many requests at once, while all
 * handlers share one Powertools logger (lib/log.ts). Lambda Managed Instances have the same
 * shape, and their runtime gives each invocation its own InvokeStore context, which
 * Powertools reads for the keys a request appends (request_id, route, caller...) and the Lambda
 * context. The local server does what that runtime does: without it, concurrent requests
 * overwrite each other's keys and log lines name another request or function.
 *
 * AWS_LAMBDA_MAX_CONCURRENCY switches Powertools and the InvokeStore to per-invocation state;
 * it must be set before the first InvokeStore is made (the AWS SDK makes one on its first
 * call), hence at import time, and checked below.
 */
process.env.AWS_LAMBDA_MAX_CONCURRENCY ??= '64';
const store = await InvokeStore.getInstanceAsync(true);

/** A store made earlier, without the variable, holds one context for the whole process. */
async function keepsContextsApart(): Promise<boolean> {
  const first = {};
  const [seen] = await Promise.all([
    store.run(first, async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return store.getContext();
    }),
    store.run({}, async () => store.getContext()),
  ]);
  return seen === first;
}
/**
 * False when an AWS SDK call came first (a test that runs the local server in its own process
 * after using DynamoDB): invocations still run, but their log keys may mix. `npm start`
 * refuses to run that way (assertInvocationsKeptApart).
 */
export const invocationsKeptApart = await keepsContextsApart();

export function assertInvocationsKeptApart(): void {
  if (!invocationsKeptApart) {
    throw new Error('lib/local/invocations.ts must be imported before the first AWS SDK call: request logs would mix');
  }
}

/** Runs one invocation in a context of its own, as the Lambda runtime does. */
export function invoke<T>(awsRequestId: string, fn: () => Promise<T>): Promise<T> {
  return store.run({ [InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID]: awsRequestId }, fn);
}
