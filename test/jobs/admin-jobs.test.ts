/**
 * `admin jobs active|requeue|recover` (scripts/admin/jobs.ts) against this file's table: the
 * active jobs an operator sees, `requeue`'s and `recover`'s usage (they send to a deployed queue
 * only), and `recover` ending a stalled job whose items were never written (which sends nothing).
 */
import { describe, expect, it } from 'vitest';
import { handler as createJob } from '../../functions/create-social-job.ts';
import { getJob } from '../../lib/db/jobs.ts';
import { createSocialJob } from '../../lib/jobs/create-job.ts';
import { workspace } from '../support/fixtures.ts';
import { call } from '../support/http.ts';
import { activeJobOf, killItemWritesAfter } from '../support/jobs.ts';
import { runAdmin } from '../support/processes.ts';
import { tokenFor } from '../support/tokens.ts';

const table = ['--table', process.env.TABLE_NAME ?? '', '--endpoint', process.env.DYNAMODB_ENDPOINT ?? '', '--region', 'us-east-1'];
const admin = (...args: string[]) => runAdmin([...args, ...table]);

describe('admin jobs', () => {
  it('lists the active jobs with their counts, and refuses requeue without a deployed queue', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const created = await call(createJob, {
      method: 'POST',
      url: `/social/x_profile/jobs?organization_id=${orgId}`,
      token: tokenFor(users.editor),
      body: { inputs: [{ handle: 'nasa' }, { handle: 'nike' }] },
    });

    const [listed, local, bad] = await Promise.all([
      admin('jobs', 'active'),
      admin('jobs', 'requeue'),
      admin('jobs', 'requeue', '--queue-url', 'http://127.0.0.1/queue'),
    ]);

    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).jobs).toContainEqual({
      id: created.body.id,
      organization_id: orgId,
      operation: 'x_profile',
      status: 'queued',
      total: 2,
      queued: 2,
      running: 0,
      succeeded: 0,
      failed: 0,
      cancelled: 0,
      cancel_requested: false,
      created_at: created.body.created_at,
      messages: 'sent',
    });
    expect(local.code).not.toBe(0);
    expect(local.stderr).toContain('--queue-url is required (locally, restart npm start: it queues active jobs again at start)');
    expect(bad.stderr).toContain('--queue-url must be an SQS queue URL');
  });

  it('recovers once what the schedule would: a job stalled past the threshold whose items were never written is cancelled', async () => {
    // Created ten minutes ago, its creation killed before its items were written.
    const { orgId, users } = await workspace({ credits: 5 });
    const kill = killItemWritesAfter(0);
    void createSocialJob({
      caller: { userId: users.editor },
      orgId,
      operationName: 'x_profile',
      inputs: [{ handle: 'nasa' }],
      now: new Date(Date.now() - 10 * 60_000),
    });
    await kill.reached;
    kill.remove();
    const jobId = await activeJobOf(orgId);

    const [listed, local, bad] = await Promise.all([
      admin('jobs', 'active'),
      admin('jobs', 'recover'),
      admin('jobs', 'recover', '--queue-url', 'https://example.com/queue'),
    ]);
    const recovered = await admin('jobs', 'recover', '--queue-url', 'https://sqs.us-east-1.amazonaws.com/123456789012/jobs');

    expect(JSON.parse(listed.stdout).jobs).toContainEqual(expect.objectContaining({ id: jobId, status: 'queued', messages: 'sending' }));
    expect(local.code).toBe(2);
    expect(local.stderr).toContain('--queue-url is required (locally, npm start runs it every minute)');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--queue-url must be an SQS queue URL');
    expect({ code: recovered.code, stderr: recovered.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(recovered.stdout)).toEqual({ jobs: 0, messages: 0, cancelled: 1 });
    expect(await getJob(jobId)).toMatchObject({ status: 'cancelled', cancelled: 1, queued: 0 });
  });
});
