/**
 * A process killed with SIGKILL in the middle of a hot organization's burst (docs/charges.md,
 * "Credit lanes"): it leaves runs charged and pending, and lanes holding credits. The sweeper
 * refunds the runs, the idle return takes the lanes' credits back, and then the balance is the sum
 * of the billing events, all of it on the organization's own item: no credit lost or given away.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { laneSettings, returnIdleLanes } from '../lib/billing/lanes.ts';
import { sweepPendingRuns } from '../lib/billing/sweeper.ts';
import { readLanes } from '../lib/db/lanes.ts';
import { getOrganization } from '../lib/db/organizations.ts';
import { listPendingRuns } from '../lib/db/pending-runs.ts';
import { workspace } from './support/fixtures.ts';
import { REPO, TSX } from './support/processes.ts';
import { storedEventsOf } from './support/social.ts';

describe('a process killed mid-burst on credit lanes', () => {
  it('strands nothing past the sweeper and the idle return: balance = events, all on the organization', async () => {
    const { orgId, users } = await workspace({ credits: 500, roles: ['owner', 'editor'] });
    const child = spawn(process.execPath, ['--import', TSX, `${REPO}test/support/hot-burst-child.ts`], {
      cwd: REPO,
      env: { ...process.env, HOT_ORGANIZATIONS: 'always', ORG_ID: orgId, PAYERS: `${users.owner},${users.editor}` },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    await new Promise<void>((resolve) => child.stdout.on('data', (chunk) => String(chunk).includes('spending') && resolve()));
    // Killed once some runs are pending and some lanes hold credits.
    for (let wait = 0; (await listPendingRuns(orgId)).length < 4 && wait < 100; wait += 1) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGKILL');
    await exited;

    const [pending, lanes] = await Promise.all([listPendingRuns(orgId), readLanes(orgId)]);
    expect(pending.length).toBeGreaterThan(0);
    expect(lanes.some((lane) => lane.credits > 0)).toBe(true);
    const later = new Date(Date.now() + 10 * 60_000);
    // Sweeps as the schedule runs them: the sweep index may list a run written just before the kill a moment late.
    let refunded = 0;
    for (let sweep = 1; (await listPendingRuns(orgId)).length > 0 && sweep <= 20; sweep += 1) {
      const swept = await sweepPendingRuns({ now: later });
      expect(swept.failed).toBe(0);
      refunded += swept.refunded;
    }
    // A settle the child sent just before it died may land after the kill: its run is then not refunded.
    expect(refunded).toBeGreaterThan(0);
    expect(refunded).toBeLessThanOrEqual(pending.length);
    await returnIdleLanes(later.getTime() + laneSettings().idleMs);

    const events = await storedEventsOf(orgId);
    const sum = events.reduce((total, event) => total + Number(event.amount), 0);
    expect((await readLanes(orgId)).every((lane) => lane.credits === 0)).toBe(true);
    expect((await getOrganization(orgId))!.credits).toBe(sum);
    expect((await getOrganization(orgId, { withLanes: false }))!.credits).toBe(sum);
    expect(await listPendingRuns(orgId)).toEqual([]);
  });
});
