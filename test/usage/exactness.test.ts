/**
 * The exactness property of usage, on DynamoDB Local with the stream read as `npm start` reads it:
 * for random charges (by members and API keys, of random operations and costs, at random times
 * over three days), refunds of some of them (later, in another bucket or the same), and grants,
 * the usage of any window — hours or days, grouped by operation and payer — is exactly what the
 * `social_operation.*` billing events of that window add up to, and the sum of `net` is minus the
 * sum of their amounts.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { handler } from '../../functions/get-usage.ts';
import { grantCredits } from '../../lib/billing/grants.ts';
import { chargeRun, refundRun, settleRun } from '../../lib/billing/paid-run.ts';
import { createApiKey } from '../../lib/db/api-keys.ts';
import { queryAll } from '../../lib/db/client.ts';
import { getMembership } from '../../lib/db/memberships.ts';
import { getOrganization } from '../../lib/db/organizations.ts';
import { isApiKeyId } from '../../lib/model.ts';
import { TEST_OPERATOR, workspace } from '../support/fixtures.ts';
import { fuzzRuns } from '../support/fuzz.ts';
import { call } from '../support/http.ts';
import { startTableStream } from '../support/table-stream.ts';
import { tokenFor } from '../support/tokens.ts';

const stream = await startTableStream();
afterAll(() => stream.stop());

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Three days ending at today's midnight: every event is in the past, inside the retention. */
const BASE_MS = Math.floor(Date.now() / DAY_MS) * DAY_MS - 3 * DAY_MS;
const OPERATIONS = [
  { name: 'x_profile', network: 'x' },
  { name: 'tiktok_search', network: 'tiktok' },
  { name: 'resolve_mention', network: undefined },
] as const;

const step = fc.oneof(
  fc.record({
    kind: fc.constant('charge' as const),
    payer: fc.nat(4),
    operation: fc.nat(2),
    cost: fc.nat(4),
    atMinute: fc.nat(3 * 24 * 60 - 1),
    // A run whose provider failed: refunded this many minutes later (the same bucket or another).
    refundAfterMinutes: fc.option(fc.nat(36 * 60), { freq: 3 }),
  }),
  fc.record({ kind: fc.constant('grant' as const), amount: fc.integer({ min: 1, max: 50 }), atMinute: fc.nat(3 * 24 * 60 - 1) }),
);
const windowOf = fc.oneof(
  fc.record({ granularity: fc.constant('hour' as const), first: fc.nat(71), count: fc.integer({ min: 1, max: 72 }) }),
  fc.record({ granularity: fc.constant('day' as const), first: fc.nat(2), count: fc.integer({ min: 1, max: 4 }) }),
);

/** Charges as the run path does, for a member or an API key, at `at`. */
async function chargeAs(orgId: string, payer: string, operation: (typeof OPERATIONS)[number], cost: number, at: Date) {
  const org = await getOrganization(orgId);
  const member = isApiKeyId(payer)
    ? { organization_id: orgId, user_id: payer, role: 'editor' as const, spending_limit: null, daily_limit: null }
    : await getMembership(orgId, payer);
  if (!org || !member) throw new Error('no payer');
  return chargeRun(
    { org, member },
    {
      orgId,
      userId: payer,
      operation: operation.name,
      network: operation.network,
      cost,
      now: at,
      owner: 'property',
      sweepAfterMs: Date.now() + 60_000,
    },
  );
}

async function apiKeyOf(orgId: string, owner: string, index: number): Promise<string> {
  const id = `key_${randomBytes(16).toString('hex')}`;
  const now = new Date();
  await createApiKey(
    {
      id,
      organization_id: orgId,
      name: `agent ${index}`,
      role: 'editor',
      spending_limit: null,
      daily_limit: null,
      allowed_ips: null,
      rate_limit: null,
      created_at: now.toISOString(),
      created_by_id: owner,
      expires_at: new Date(now.getTime() + DAY_MS).toISOString(),
      revoked_at: null,
      last_used_at: null,
    },
    TEST_OPERATOR,
    new Date(),
  );
  return id;
}

type Row = {
  operation: string;
  member: string | null;
  api_key: string | null;
  runs: number;
  charged: number;
  refunded: number;
  net: number;
};

describe('usage = billing events', () => {
  it('holds for random runs, refunds and grants, and random windows', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 24 }),
        fc.array(windowOf, { minLength: 1, maxLength: 4 }),
        async (steps, windows) => {
          // Prepare
          const { orgId, users } = await workspace({ credits: 1_000 });
          const keys = [await apiKeyOf(orgId, users.owner, 1), await apiKeyOf(orgId, users.owner, 2)];
          const payers = [users.owner, users.editor, users.owner, ...keys];
          for (const each of steps) {
            const atMs = BASE_MS + each.atMinute * 60_000;
            if (each.kind === 'grant') {
              await grantCredits(orgId, each.amount, new Date(atMs));
              continue;
            }
            const run = await chargeAs(
              orgId,
              payers[each.payer] ?? users.owner,
              OPERATIONS[each.operation] ?? OPERATIONS[0],
              each.cost,
              new Date(atMs),
            );
            if (each.refundAfterMinutes === null) await settleRun(run, undefined, { untilMs: Date.now() + 5_000, nowMs: Date.now() });
            else {
              const refundAtMs = Math.min(atMs + each.refundAfterMinutes * 60_000, BASE_MS + 3 * DAY_MS - 1);
              expect(await refundRun(run, 'property', { now: new Date(refundAtMs) })).toBe('refunded');
            }
          }

          // Act
          await stream.catchUp();

          // Assess
          const events = await queryAll({
            KeyConditionExpression: 'PK = :pk AND begins_with(SK, :event)',
            ExpressionAttributeValues: { ':pk': `ORG#${orgId}`, ':event': 'EVENT#' },
            ConsistentRead: true,
          });
          for (const { granularity, first, count } of windows) {
            const size = granularity === 'hour' ? HOUR_MS : DAY_MS;
            const fromMs = BASE_MS + first * size;
            const toMs = fromMs + count * size;
            const answer = await call(handler, {
              url: `/organizations/${orgId}/usage?from=${new Date(fromMs).toISOString()}&to=${new Date(toMs).toISOString()}&granularity=${granularity}&group_by=operation,member,api_key`,
              token: tokenFor(users.owner),
            });
            expect(answer.status).toBe(200);
            expect(answer.body.buckets).toHaveLength(count);
            const got = new Map<string, Row>();
            for (const bucket of answer.body.buckets)
              for (const row of bucket.results as Row[]) got.set(`${bucket.start} ${row.operation} ${row.member} ${row.api_key}`, row);
            const want = new Map<string, Row>();
            let amounts = 0;
            for (const event of events) {
              const atMs = Date.parse(String(event.created_at));
              if (!String(event.type).startsWith('social_operation.') || atMs < fromMs || atMs >= toMs) continue;
              amounts += Number(event.amount);
              const metadata = event.metadata as Record<string, string>;
              const start = new Date(atMs - (atMs % size)).toISOString();
              const member = metadata.user_id ?? null;
              const apiKey = metadata.api_key_id ?? null;
              const id = `${start} ${metadata.operation} ${member} ${apiKey}`;
              const row = want.get(id) ?? {
                operation: String(metadata.operation),
                member,
                api_key: apiKey,
                runs: 0,
                charged: 0,
                refunded: 0,
                net: 0,
              };
              if (event.type === 'social_operation.charged') {
                row.runs += 1;
                row.charged -= Number(event.amount);
              } else row.refunded += Number(event.amount);
              row.net = row.charged - row.refunded;
              want.set(id, row);
            }
            const sorted = (rows: Map<string, Row>) => [...rows].sort(([a], [b]) => (a < b ? -1 : 1));
            expect(sorted(got)).toEqual(sorted(want));
            expect([...got.values()].reduce((sum, row) => sum + row.net, 0) + amounts).toBe(0);
          }
        },
      ),
      { numRuns: fuzzRuns(6) },
    );
  }, 120_000);
});
