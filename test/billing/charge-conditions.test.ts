/**
 * Each condition of the charge transaction (lib/billing/paid-run.ts `chargeTransaction`), met by a
 * run in flight: the runs have read the organization, their membership or key and built their
 * charge; what the condition guards changes; then the charges go. Every run must be answered by
 * what holds now, and charged only if it may be. Each case fails when its condition is removed
 * (docs/charges.md, "Limits and caps"). Through the real handlers on DynamoDB Local.
 */
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { handler as createKey } from '../../functions/create-api-key.ts';
import { handler as runOperation } from '../../functions/run-social-operation.ts';
import { revokeApiKey, updateApiKey } from '../../lib/db/api-keys.ts';
import { db, tableName } from '../../lib/db/client.ts';
import { apiKeyKey, orgKey } from '../../lib/db/keys.ts';
import { removeMembership, setMemberDailyLimit, setMemberRole, setMemberSpendingLimit } from '../../lib/db/memberships.ts';
import {
  deductCredits,
  getOrganization,
  setNetworks,
  setOrganizationDailyLimit,
  setOrganizationSpendingLimit,
} from '../../lib/db/organizations.ts';
import { TEST_OPERATOR, workspace } from '../support/fixtures.ts';
import { inFlight } from '../support/hold-charges.ts';
import { call } from '../support/http.ts';
import { eventsOf, runUrl } from '../support/social.ts';
import { tokenFor } from '../support/tokens.ts';

/** More than the highest limit a case sets (3): each limited case has runs charged and runs refused. */
const IN_FLIGHT = 4;
const CREDITS = 100;

interface Payer {
  orgId: string;
  owner: string;
  /** The paying member's user id, or the key's id. */
  payer: string;
  token: string;
}

async function member(limits: { spending_limit?: number; daily_limit?: number } = {}): Promise<Payer> {
  const { orgId, users } = await workspace({ credits: CREDITS, networks: ['tiktok', 'x'] });
  if (limits.spending_limit !== undefined) await setMemberSpendingLimit(orgId, users.editor, limits.spending_limit, TEST_OPERATOR);
  if (limits.daily_limit !== undefined) await setMemberDailyLimit(orgId, users.editor, limits.daily_limit, TEST_OPERATOR);
  return { orgId, owner: users.owner, payer: users.editor, token: tokenFor(users.editor) };
}

async function apiKey(limits: { spending_limit?: number; daily_limit?: number } = {}): Promise<Payer> {
  const { orgId, users } = await workspace({ credits: CREDITS, networks: ['tiktok', 'x'] });
  const created = await call(createKey, {
    method: 'POST',
    url: `/organizations/${orgId}/api-keys`,
    token: tokenFor(users.owner),
    body: { name: 'agent', role: 'editor', ...limits },
  });
  return { orgId, owner: users.owner, payer: created.body.id, token: created.body.token };
}

const run = ({ orgId, token }: Payer) =>
  call(runOperation, { method: 'POST', url: runUrl('tiktok_profile', orgId), token, body: { handle: 'nasa' } });

const answered = (answers: { status: number; body: any }[]) => {
  const counts: Record<string, number> = {};
  for (const answer of answers) {
    const key = answer.status === 200 ? '200' : `${answer.status} ${answer.body.code}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
};

const charges = async (orgId: string) => (await eventsOf(orgId)).filter((event) => event.type === 'social_operation.charged').length;

const cases: [string, () => Promise<Payer>, (payer: Payer) => Promise<unknown>, Record<string, number>, number][] = [
  // The organization's item (the debit).
  [
    'organization: it is gone',
    member,
    ({ orgId }) => db().send(new DeleteCommand({ TableName: tableName(), Key: orgKey(orgId) })),
    { '403 forbidden': IN_FLIGHT },
    0,
  ],
  [
    'organization: its balance spent elsewhere',
    member,
    ({ orgId }) => deductCredits(orgId, CREDITS - 2, 'test', TEST_OPERATOR),
    { '200': 2, '402 insufficient_credits': IN_FLIGHT - 2 },
    2,
  ],
  [
    'organization: its network turned off',
    member,
    ({ orgId }) => setNetworks(orgId, ['x'], TEST_OPERATOR),
    { '403 operation_not_enabled': IN_FLIGHT },
    0,
  ],
  [
    'organization: its monthly limit lowered',
    member,
    ({ orgId }) => setOrganizationSpendingLimit(orgId, 1, TEST_OPERATOR),
    { '200': 1, '402 spending_limit_exceeded': IN_FLIGHT - 1 },
    1,
  ],
  [
    'organization: its daily limit lowered',
    member,
    ({ orgId }) => setOrganizationDailyLimit(orgId, 2, TEST_OPERATOR),
    { '200': 2, '402 spending_limit_exceeded': IN_FLIGHT - 2 },
    2,
  ],
  // The member's item.
  ['member: removed', member, ({ orgId, payer }) => removeMembership(orgId, payer, TEST_OPERATOR), { '403 forbidden': IN_FLIGHT }, 0],
  [
    'member: made a viewer',
    member,
    ({ orgId, payer }) => setMemberRole(orgId, payer, 'viewer', TEST_OPERATOR),
    { '403 forbidden': IN_FLIGHT },
    0,
  ],
  [
    'member: its monthly limit lowered',
    () => member({ spending_limit: 1_000 }),
    ({ orgId, payer }) => setMemberSpendingLimit(orgId, payer, 3, TEST_OPERATOR),
    { '200': 3, '402 spending_limit_exceeded': IN_FLIGHT - 3 },
    3,
  ],
  [
    'member: a daily limit set',
    member,
    ({ orgId, payer }) => setMemberDailyLimit(orgId, payer, 1, TEST_OPERATOR),
    { '200': 1, '402 spending_limit_exceeded': IN_FLIGHT - 1 },
    1,
  ],
  // The API key's item.
  [
    'key: revoked',
    apiKey,
    ({ orgId, payer }) => revokeApiKey(orgId, payer, new Date(), TEST_OPERATOR),
    { '401 unauthenticated': IN_FLIGHT },
    0,
  ],
  [
    'key: expired',
    apiKey,
    ({ orgId, payer }) =>
      db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: apiKeyKey(orgId, payer),
          UpdateExpression: 'SET key_expires_at = :past',
          ExpressionAttributeValues: { ':past': new Date(Date.now() - 1000).toISOString() },
        }),
      ),
    { '401 unauthenticated': IN_FLIGHT },
    0,
  ],
  [
    'key: made a viewer',
    apiKey,
    ({ orgId, payer }) => updateApiKey(orgId, payer, { role: 'viewer' }, TEST_OPERATOR, new Date()),
    { '403 forbidden': IN_FLIGHT },
    0,
  ],
  [
    'key: its monthly limit lowered',
    () => apiKey({ spending_limit: 1_000 }),
    ({ orgId, payer }) => updateApiKey(orgId, payer, { spending_limit: 2 }, TEST_OPERATOR, new Date()),
    { '200': 2, '402 spending_limit_exceeded': IN_FLIGHT - 2 },
    2,
  ],
  [
    'key: its daily limit lowered',
    () => apiKey({ daily_limit: 1_000 }),
    ({ orgId, payer }) => updateApiKey(orgId, payer, { daily_limit: 3 }, TEST_OPERATOR, new Date()),
    { '200': 3, '402 spending_limit_exceeded': IN_FLIGHT - 3 },
    3,
  ],
];

describe('each condition of the charge, met by runs in flight', () => {
  it.each(cases)('%s', async (_case, make, change, expected, charged) => {
    const payer = await make();

    const answers = await inFlight(
      IN_FLIGHT,
      () => run(payer),
      () => change(payer),
    );

    expect(answered(answers)).toEqual(expected);
    expect(await charges(payer.orgId)).toBe(charged);
    const org = await getOrganization(payer.orgId);
    if (org) expect(org.credits).toBeGreaterThanOrEqual(0);
  });
});
