/**
 * `npm run admin -- usage`: an organization's usage as its owners see it, for operators, from the
 * same counters (written here through the aggregator's own storage), JSON or CSV; bad usage
 * answered with the route's rules in the CLI's words.
 */
import { describe, expect, it } from 'vitest';
import { grantCredits } from '../../lib/billing/grants.ts';
import { refundRun, settleRun } from '../../lib/billing/paid-run.ts';
import { countUsage } from '../../lib/db/usage.ts';
import { main } from '../../scripts/admin/main.ts';
import { chargeDirectly } from '../support/charges.ts';
import { workspace } from '../support/fixtures.ts';

const table = ['--table', process.env.TABLE_NAME!, '--endpoint', process.env.DYNAMODB_ENDPOINT!, '--region', 'us-east-1'];

async function admin(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main([...args, ...table], { out: (text) => (stdout += text), err: (text) => (stderr += text) });
  return { code, stdout, stderr };
}

const delta = (bucketStart: string, operation: string, member: string | null, apiKey: string | null, charged: number) => ({
  granularity: 'day' as const,
  bucketStart,
  operation,
  member,
  apiKey,
  runs: charged,
  charged,
  refunded: 0,
});

describe('admin usage', () => {
  it("prints the organization's usage grouped as asked, as JSON and as CSV", async () => {
    const { orgId, users } = await workspace();
    await countUsage(
      orgId,
      [],
      [
        delta('2026-11-20T00:00:00.000Z', 'x_profile', users.editor, null, 2),
        delta('2026-11-20T00:00:00.000Z', 'x_search', null, 'key_a', 3),
      ],
    );
    const args = [
      'usage',
      'show',
      '--org',
      orgId,
      '--from',
      '2026-11-20T00:00:00Z',
      '--to',
      '2026-11-22T00:00:00Z',
      '--group-by',
      'network',
    ];

    const json = await admin(...args);
    const csv = await admin(...args, '--csv');

    expect([json.code, json.stderr]).toEqual([0, '']);
    expect(JSON.parse(json.stdout)).toEqual({
      organization_id: orgId,
      from: '2026-11-20T00:00:00.000Z',
      to: '2026-11-22T00:00:00.000Z',
      granularity: 'day',
      group_by: ['network'],
      buckets: [
        {
          start: '2026-11-20T00:00:00.000Z',
          end: '2026-11-21T00:00:00.000Z',
          results: [{ network: 'x', runs: 5, charged: 5, refunded: 0, net: 5 }],
        },
        { start: '2026-11-21T00:00:00.000Z', end: '2026-11-22T00:00:00.000Z', results: [] },
      ],
    });
    expect(csv).toEqual({
      code: 0,
      stdout: 'start,end,network,runs,charged,refunded,net\r\n2026-11-20T00:00:00.000Z,2026-11-21T00:00:00.000Z,x,5,5,0,5\r\n',
      stderr: '',
    });
  });

  it.each([
    [['--from', '2026-11-20T00:00:00Z', '--to', '2026-11-20T00:00:00Z'], 'usage: --to must be after from (usage --help)'],
    [
      ['--from', '2026-11-20T05:00:00Z', '--to', '2026-11-21T00:00:00Z'],
      'usage: --from must be the start of a UTC day (00:00:00Z) with granularity=day (usage --help)',
    ],
    [
      ['--from', 'yesterday', '--to', '2026-11-21T00:00:00Z'],
      'usage: --from must be an ISO 8601 UTC timestamp such as 2025-01-31T00:00:00Z, got "yesterday" (usage --help)',
    ],
    [
      ['--from', '2026-11-20T00:00:00Z', '--to', '2026-11-21T00:00:00Z', '--group-by', 'team'],
      'usage: --group-by has an unknown key "team": one or more of operation, network, member, api_key, comma-separated (usage --help)',
    ],
    [
      ['--from', '2026-11-20T00:00:00Z', '--to', '2026-11-21T00:00:00Z', '--granularity', 'week'],
      'usage: --granularity must be one of hour, day, got "week" (usage --help)',
    ],
  ])('refuses %j with exit 2', async (options, message) => {
    const result = await admin('usage', 'show', '--org', 'org_any', ...options);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `admin: ${message.replace(/^usage: /, 'usage show: ').replace(/\(usage --help\)$/, '(usage show --help)')}\n`,
    });
  });

  it('recounts a window from the billing events: what no stream counted is counted, once however often it is run', async () => {
    // Charges made while nothing reads this file's stream: in the events, not in usage.
    const { orgId, users } = await workspace({ credits: 50 });
    const at = new Date('2026-11-20T10:00:00.000Z');
    await settleRun(await chargeDirectly({ orgId, userId: users.editor, cost: 4, now: at }), undefined, {
      untilMs: Date.now() + 5_000,
      nowMs: Date.now(),
    });
    await refundRun(await chargeDirectly({ orgId, userId: users.owner, cost: 3, now: at }), 'test', {
      now: new Date('2026-11-20T11:00:00.000Z'),
    });
    await grantCredits(orgId, 5, at);
    const window = ['--org', orgId, '--from', '2026-11-20T00:00:00Z', '--to', '2026-11-21T00:00:00Z'];

    const first = await admin('usage', 'recount', ...window);
    const again = await admin('usage', 'recount', ...window);
    const shown = await admin('usage', 'show', ...window, '--csv');

    const summary = { organization_id: orgId, from: '2026-11-20T00:00:00.000Z', to: '2026-11-21T00:00:00.000Z', events: 3 };
    expect([first.code, JSON.parse(first.stdout)]).toEqual([0, { ...summary, counted: 3, duplicates: 0, transactions: 1 }]);
    expect([again.code, JSON.parse(again.stdout)]).toEqual([0, { ...summary, counted: 0, duplicates: 3, transactions: 1 }]);
    expect(shown.stdout).toBe('start,end,runs,charged,refunded,net\r\n2026-11-20T00:00:00.000Z,2026-11-21T00:00:00.000Z,2,7,3,4\r\n');
  });

  it('refuses an unknown organization rather than showing it empty', async () => {
    const result = await admin(
      'usage',
      'show',
      '--org',
      'org_nobody_here',
      '--from',
      '2026-11-20T00:00:00Z',
      '--to',
      '2026-11-21T00:00:00Z',
    );
    expect(result).toEqual({ code: 1, stdout: '', stderr: 'admin: organization org_nobody_here does not exist\n' });
  });
});
