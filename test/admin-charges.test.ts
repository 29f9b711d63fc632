/**
 * `admin charges pending|sweep` (scripts/admin/charges.ts) against this file's table: what an
 * operator sees of runs in flight, the sweep on demand, and bad usage. The CLI's own `main` in this
 * process (its six processes cost the file about 0.7 CPU-s); what only a process shows, its exit
 * codes and streams and the local stack's files, is test/admin-cli.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import { getOrganization } from '../lib/db/organizations.ts';
import { listPendingRuns } from '../lib/db/pending-runs.ts';
import { main } from '../scripts/admin/main.ts';
import { chargeDirectly } from './support/charges.ts';
import { workspace } from './support/fixtures.ts';

const table = ['--table', process.env.TABLE_NAME!, '--endpoint', process.env.DYNAMODB_ENDPOINT!, '--region', 'us-east-1'];
async function admin(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main([...args, ...table], { out: (text) => (stdout += text), err: (text) => (stderr += text) });
  return { code, stdout, stderr };
}

describe('admin charges', () => {
  it('lists the pending runs of an organization, and sweeps those due by --at, printing {"refunded": N}', async () => {
    // Prepare: one run charged at 12:00, due for the sweeper at 12:01.
    const { orgId, users } = await workspace({ credits: 5 });
    const run = await chargeDirectly({
      orgId,
      userId: users.editor,
      operation: 'x_profile',
      network: 'x',
      now: new Date('2030-01-01T12:00:00.000Z'),
      owner: 'attempt-1',
      sweepAfterMs: Date.parse('2030-01-01T12:01:00.000Z'),
    });

    // Act
    const [listed, all, early, bad, unknown] = await Promise.all([
      admin('charges', 'pending', '--org', orgId),
      admin('charges', 'pending'),
      admin('charges', 'sweep', '--at', '2030-01-01T12:00:30.000Z'),
      admin('charges', 'sweep', '--at', 'soon'),
      admin('charges', 'cancel'),
    ]);
    const due = await admin('charges', 'sweep', '--at', '2030-01-01T12:01:01.000Z');

    // Assess
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(listed.stdout)).toEqual({
      pending: [
        {
          organization_id: orgId,
          user_id: users.editor,
          operation: 'x_profile',
          cost: 1,
          charge_id: run.eventId,
          charged_at: '2030-01-01T12:00:00.000Z',
          sweep_after: '2030-01-01T12:01:00.000Z',
          due: false,
          idempotency_key: false,
        },
      ],
    });
    // Without --org: every organization's, from the sweep index.
    expect(JSON.parse(all.stdout)).toEqual(JSON.parse(listed.stdout));
    expect(JSON.parse(early.stdout)).toEqual({ refunded: 0 });
    expect(bad.code).toBe(2);
    expect(bad.stderr.split('\n')[0]).toBe('admin: charges sweep: --at must be an ISO 8601 date-time (charges sweep --help)');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.split('\n')[0]).toBe('admin: unknown command "charges cancel": charges takes pending, sweep');
    expect(due).toMatchObject({ code: 0, stdout: '{\n  "refunded": 1\n}\n' });
    expect(await listPendingRuns(orgId)).toEqual([]);
    expect((await getOrganization(orgId))!.credits).toBe(5);
  });
});
