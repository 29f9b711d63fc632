/**
 * The pure parts of a job's lifecycle, without DynamoDB: a job's write as built from its own terms
 * (lib/db/jobs.ts `jobUpdate`), the job as a cancel wrote it, a failed item's outcome (a 402
 * refuses the items after it), and what counts as stalled. The writes themselves, and their races,
 * are tested on DynamoDB Local (test/jobs/lifecycle-race.test.ts and the other jobs tests).
 */
import { describe, expect, it } from 'vitest';
import { type JobRecord, jobUpdate } from '../../lib/db/jobs.ts';
import { forbidden, insufficientCredits, jobMaxCreditsExceeded } from '../../lib/errors.ts';
import { afterCancel, failedOutcome, isStalled, newJob } from '../../lib/jobs/lifecycle.ts';

const now = new Date('2026-03-15T12:00:00.000Z');
const job = (over: Partial<JobRecord> = {}): JobRecord => ({
  ...newJob({ orgId: 'org_a', operation: 'tiktok_profile', total: 5, createdById: 'u1', now }),
  ...over,
});

describe('jobUpdate', () => {
  it('writes a change and its condition in DynamoDB terms, `status` by name', () => {
    const write = jobUpdate(
      'job_1',
      { status: 'running', startedAt: now.toISOString(), add: { queued: -1, running: 1 } },
      { active: true, cancelRequested: false, refused: false, queued: ['>', 0] },
      true,
    );
    expect(write).toEqual({
      TableName: 'unit-tests-have-no-table',
      Key: { PK: 'JOB#job_1', SK: 'JOB' },
      UpdateExpression: 'SET #status = :running, started_at = if_not_exists(started_at, :now) ADD queued :minus, running :one',
      ConditionExpression:
        '#status IN (:queued, :running) AND cancel_requested <> :true AND attribute_not_exists(refusal) AND queued > :zero',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':running': 'running',
        ':now': now.toISOString(),
        ':minus': -1,
        ':one': 1,
        ':queued': 'queued',
        ':true': true,
        ':zero': 0,
      },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  });

  it('gives a label holding another value a placeholder of its own', () => {
    const write = jobUpdate('job_1', { completedAt: '2026-03-15T12:00:00.000Z', messagesSentAt: '2026-03-15T12:00:01.000Z' });
    expect(write.UpdateExpression).toBe('SET completed_at = :now, messages = :sent, messages_sent_at = :now2');
    expect(write.ExpressionAttributeValues).toMatchObject({ ':now': '2026-03-15T12:00:00.000Z', ':now2': '2026-03-15T12:00:01.000Z' });
  });

  it('brackets each alternative of several facts, and names nothing it does not use', () => {
    const write = jobUpdate(
      'job_1',
      { recoveryLeaseUntilMs: null },
      { exists: true, anyOf: [{ messages: 'sending' }, { messages: 'absent', status: 'queued', started: false }] },
    );
    expect(write.UpdateExpression).toBe('REMOVE recovery_lease_until_ms');
    expect(write.ConditionExpression).toBe(
      'attribute_exists(PK) AND (messages = :sending OR (#status = :queued AND attribute_not_exists(started_at) AND attribute_not_exists(messages)))',
    );
    expect(jobUpdate('job_1', { recoveryLeaseUntilMs: null })).not.toHaveProperty('ExpressionAttributeValues');
    expect(jobUpdate('job_1', { recoveryLeaseUntilMs: null })).not.toHaveProperty('ExpressionAttributeNames');
    expect(jobUpdate('job_1', { recoveryLeaseUntilMs: null })).not.toHaveProperty('ConditionExpression');
  });
});

describe('afterCancel', () => {
  const read = job({ status: 'running', queued: 3, running: 0, succeeded: 2, webhook_url: 'https://hooks.example/x' });

  it('ends the job as read when nothing ran: its queued items cancelled, its webhook pending', () => {
    expect(afterCancel(read, 'ended', now)).toMatchObject({
      status: 'cancelled',
      completed_at: now.toISOString(),
      queued: 0,
      cancelled: 3,
      succeeded: 2,
      cancel_requested: true,
      webhook_status: 'pending',
    });
  });

  it('leaves a requested cancel active, and says nothing when items ran or the job had ended', () => {
    expect(afterCancel(read, 'requested', now)).toMatchObject({ status: 'running', queued: 0, cancelled: 3, cancel_requested: true });
    expect(afterCancel({ ...read, running: 1 }, 'requested', now)).toBeNull();
    expect(afterCancel(read, 'inactive', now)).toBeNull();
  });
});

describe('failedOutcome', () => {
  it('makes a 402 the refusal of the items after it, and nothing else', () => {
    const refused = failedOutcome(insufficientCredits(0, 1));
    expect(refused).toMatchObject({ status: 'failed', charged: 0, error: { code: 'insufficient_credits' } });
    expect(refused.refusal).toEqual(refused.error);
    const denied = failedOutcome(forbidden('no'));
    expect(denied).toMatchObject({ status: 'failed', charged: 0, error: { code: 'forbidden', message: 'no' } });
    expect(denied).not.toHaveProperty('refusal');
  });

  it("keeps the job's own cap to its item: each item is judged by what is left when it is charged", () => {
    const capped = failedOutcome(jobMaxCreditsExceeded(1, 5, 0));
    expect(capped).toMatchObject({ error: { code: 'max_credits_exceeded', data: { cost: 1, max_credits: 5, remaining: 0 } } });
    expect(capped).not.toHaveProperty('refusal');
  });
});

describe('newJob', () => {
  it('starts a capped job with nothing spent of its cap, and a job without one with neither', () => {
    expect(newJob({ orgId: 'org_a', operation: 'x', total: 1, createdById: 'u1', now, maxCredits: 0 })).toMatchObject({
      max_credits: 0,
      budget_spent: 0,
    });
    expect(job()).toMatchObject({ max_credits: null, budget_spent: null });
  });
});

describe('isStalled', () => {
  const cutoff = new Date(now.getTime() + 60_000);

  it('holds for an active job created by the cutoff whose messages were never marked sent', () => {
    expect(isStalled(job(), cutoff)).toBe(true);
    expect(isStalled(job({ status: 'running', queued: 2, running: 1 }), cutoff)).toBe(true);
  });

  it('does not hold for a young, sent, ended or cancelling job', () => {
    expect(isStalled(job(), new Date(now.getTime() - 1))).toBe(false);
    expect(isStalled(job({ messages: 'sent' }), cutoff)).toBe(false);
    expect(isStalled(job({ status: 'completed' }), cutoff)).toBe(false);
    expect(isStalled(job({ cancel_requested: true }), cutoff)).toBe(false);
  });

  it('counts a job from before `messages` only while none of its items was claimed', () => {
    expect(isStalled(job({ messages: null }), cutoff)).toBe(true);
    expect(isStalled(job({ messages: null, status: 'running', queued: 4, running: 1 }), cutoff)).toBe(false);
  });
});
