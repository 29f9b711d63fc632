/**
 * The deployed worker function (functions/job-worker.ts) as the SQS event source mapping invokes
 * it: a batch of messages handled together, and only those to deliver again listed in
 * `batchItemFailures` (ReportBatchItemFailures), so that the others are deleted and not run twice.
 */
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { handler as createJob } from '../../functions/create-social-job.ts';
import { handler as worker } from '../../functions/job-worker.ts';
import { getJob } from '../../lib/db/jobs.ts';
import { claimJobItem } from '../../lib/jobs/lifecycle.ts';
import { workspace } from '../support/fixtures.ts';
import { call } from '../support/http.ts';
import { webhooksQueue } from '../support/jobs.ts';
import { ledgerProblems, readLedger } from '../support/ledger.ts';
import { tokenFor } from '../support/tokens.ts';

const record = (messageId: string, body: string): SQSRecord =>
  ({ messageId, body, receiptHandle: messageId, attributes: {}, messageAttributes: {}, eventSource: 'aws:sqs' }) as unknown as SQSRecord;
const context = { getRemainingTimeInMillis: () => 60_000, awsRequestId: 'worker-test' } as unknown as Context;

describe('functions/job-worker.ts', () => {
  it('answers the messages to deliver again, and only those: an item another worker holds, a body that is not a message', async () => {
    // Prepare: a job of 3; item 1 is held by a live worker (claimed, lease running).
    const { orgId, users } = await workspace({ credits: 10 });
    const created = await call(createJob, {
      method: 'POST',
      url: `/social/x_profile/jobs?organization_id=${orgId}`,
      token: tokenFor(users.editor),
      body: { inputs: [{ handle: 'a' }, { handle: 'b' }, { handle: 'c' }] },
    });
    const jobId = created.body.id as string;
    expect(await claimJobItem(jobId, 1, Date.now() + 60_000, new Date())).toBeNull();
    const message = (index: number) => JSON.stringify({ kind: 'item', jobId, orgId, index });
    const event: SQSEvent = {
      Records: [record('m0', message(0)), record('m1', message(1)), record('m2', message(2)), record('bad', 'not json')],
    };

    // Act
    const answer = await worker(event, context);

    // Assess
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }, { itemIdentifier: 'bad' }] });
    expect(await getJob(jobId)).toMatchObject({ status: 'running', succeeded: 2, running: 1, queued: 0, charged: 2 });
    expect(ledgerProblems(await readLedger(orgId), 2)).toEqual([]);
  });

  it('passes a webhook attempt queued here before deliveries had a queue of their own on to the webhooks queue', async () => {
    const sent = vi.spyOn(webhooksQueue(), 'send');
    const legacy = { kind: 'webhook', jobId: 'job_queued_before_the_update', orgId: 'org_x', attempt: 3 };

    const answer = await worker({ Records: [record('w', JSON.stringify(legacy))] }, context);

    expect(answer).toEqual({ batchItemFailures: [] });
    expect(sent).toHaveBeenCalledWith([
      {
        message: {
          kind: 'delivery',
          eventId: 'msg_job_queued_before_the_update',
          orgId: 'org_x',
          subject: { type: 'job', jobId: 'job_queued_before_the_update' },
          attempt: 3,
        },
        groupId: 'org_x',
      },
    ]);
    webhooksQueue().purge();
  });
});
