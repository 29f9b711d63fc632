/**
 * `admin jobs active|requeue` (scripts/admin/jobs.ts) against this file's table: the active jobs
 * an operator sees, and `requeue`'s usage (it sends to a deployed queue only).
 */
import { describe, expect, it } from 'vitest';
import { handler as createJob } from '../../functions/create-social-job.ts';
import { workspace } from '../support/fixtures.ts';
import { call } from '../support/http.ts';
import { runScript } from '../support/processes.ts';
import { tokenFor } from '../support/tokens.ts';

const table = ['--table', process.env.TABLE_NAME ?? '', '--endpoint', process.env.DYNAMODB_ENDPOINT ?? '', '--region', 'us-east-1'];
const admin = (...args: string[]) => runScript('scripts/admin.ts', [...args, ...table]);

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
    });
    expect(local.code).not.toBe(0);
    expect(local.stderr).toContain('--queue-url is required (locally, restart npm start: it queues active jobs again at start)');
    expect(bad.stderr).toContain('--queue-url must be an SQS queue URL');
  });
});
