/**
 * Credit grants (docs/funding.md, "Grants and expiry"): the listing through its whole chain, the
 * ledger fed by the table's stream as `npm start` runs it (draw order, refunds, debt, redelivery,
 * a refund before its charge), the expiry and its warning, the operator CLI's flags, and the
 * invariant after a concurrent burst: balance = Σ remaining − debt = Σ billing-event amounts.
 */
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, describe, expect, it } from 'vitest';
import { handler as createKey } from '../../functions/create-api-key.ts';
import { handler as createWebhook } from '../../functions/create-webhook.ts';
import { handler as listGrantsHandler } from '../../functions/list-credit-grants.ts';
import { handler as tableStream } from '../../functions/table-stream.ts';
import { migrateGrants } from '../../lib/admin/grants-migration.ts';
import { expireDueGrants } from '../../lib/billing/expiry.ts';
import { EXPIRY_MARGIN_MS, grantCredits } from '../../lib/billing/grants.ts';
import { applyLedgerRecords, LEGACY_CUTOFF_MS } from '../../lib/billing/ledger.ts';
import { refundRun, settleRun } from '../../lib/billing/paid-run.ts';
import { listAllBillingEvents, newBillingEvent } from '../../lib/db/billing-events.ts';
import { db, tableName } from '../../lib/db/client.ts';
import { grantView, readGrantState } from '../../lib/db/grants.ts';
import { grantLedgerKey, orgKey } from '../../lib/db/keys.ts';
import { applyBillingEvent, deductCredits, getOrganization } from '../../lib/db/organizations.ts';
import type { PendingRun } from '../../lib/db/pending-runs.ts';
import { defined } from '../../lib/defined.ts';
import type { ChangeRecord } from '../../lib/stream/dispatch.ts';
import { main } from '../../scripts/admin/main.ts';
import { receiver } from '../alerts/receivers.ts';
import { chargeDirectly } from '../support/charges.ts';
import { atDepth } from '../support/depth.ts';
import { TEST_OPERATOR, uniqueId, workspace } from '../support/fixtures.ts';
import { call, withoutRequestId } from '../support/http.ts';
import { drainJobs } from '../support/jobs.ts';
import { startTableStream } from '../support/table-stream.ts';
import { tokenFor } from '../support/tokens.ts';

/**
 * The stream as `npm start` reads it, with two powers a test needs: every batch is kept (to hand
 * an organization's records to the function again: a redelivery), and an organization's records
 * can be held back (the stream lagging, or the grants consumer not yet deployed) until released.
 */
const seen: DynamoDBRecord[] = [];
const held = new Set<string>();
const heldRecords: DynamoDBRecord[] = [];
const ofOrg = (orgId: string) => (record: DynamoDBRecord) => JSON.stringify(record.dynamodb?.Keys ?? {}).includes(`#${orgId}"`);
const isHeld = (record: DynamoDBRecord) => [...held].some((orgId) => ofOrg(orgId)(record));
const stream = await startTableStream({
  handler: (event) => {
    seen.push(...event.Records);
    heldRecords.push(...event.Records.filter(isHeld));
    return tableStream({ Records: event.Records.filter((record) => !isHeld(record)) });
  },
});
afterAll(() => stream.stop());

/** Hands `records` to the stream's function as the mapping would, again from the first it reports failed. */
async function deliver(records: readonly DynamoDBRecord[]): Promise<void> {
  let batch = [...records];
  for (let attempt = 0; batch.length > 0; attempt++) {
    if (attempt === 5) throw new Error(`the stream's function kept failing ${batch.length} records`);
    const failed = (await tableStream({ Records: batch })).batchItemFailures.map((failure) => failure.itemIdentifier);
    const from = batch.findIndex((record) => failed.includes(String(record.dynamodb?.SequenceNumber)));
    batch = from < 0 ? [] : batch.slice(from);
  }
}

/** What the stream holds of the organization from now on waits for release (or releaseOnly). */
async function hold(orgId: string): Promise<void> {
  await stream.catchUp();
  held.add(orgId);
}

/** The organization's held records matching `which`, in stream order, taken out of the hold. */
async function takeHeld(orgId: string, which: (record: DynamoDBRecord) => boolean = () => true): Promise<DynamoDBRecord[]> {
  await stream.catchUp();
  const taken = heldRecords.filter((record) => ofOrg(orgId)(record) && which(record));
  for (const record of taken) heldRecords.splice(heldRecords.indexOf(record), 1);
  return taken;
}

/** Ends the hold and delivers what it kept. */
async function release(orgId: string): Promise<void> {
  const records = await takeHeld(orgId);
  held.delete(orgId);
  await deliver(records);
}

/** Every record of the organization the stream delivered, delivered again (a redelivery). */
const redeliver = (orgId: string) => deliver(seen.filter(ofOrg(orgId)));

const DAY_MS = 86_400_000;
const inDays = (days: number) => new Date(Date.now() + days * DAY_MS).toISOString();
const settleNow = () => ({ untilMs: Date.now() + 5_000, nowMs: Date.now() });
const grantsUrl = (orgId: string, query = '') => `/organizations/${orgId}/credit-grants${query}`;

/** The grants as stored, by id: what remains of each. */
async function remainingById(orgId: string): Promise<Record<string, number>> {
  const { grants } = await readGrantState(orgId);
  return Object.fromEntries(grants.map((grant) => [grant.id, grant.remaining]));
}

/** The invariant at rest: the balance, Σ remaining − debt and Σ events, which must be one figure. */
async function figures(orgId: string) {
  const [org, state, events] = await Promise.all([getOrganization(orgId), readGrantState(orgId), listAllBillingEvents(orgId)]);
  return {
    balance: org?.credits,
    grants: state.grants.reduce((sum, grant) => sum + grant.remaining, 0) - (state.ledger?.debt ?? 0),
    events: events.reduce((sum, event) => sum + event.amount, 0),
  };
}

/** A billing event's stream record as the ledger receives it. */
const recordOf = (orgId: string, sequenceNumber: string, event: Record<string, unknown>): ChangeRecord => ({
  sequenceNumber,
  eventName: 'INSERT',
  newImage: { PK: orgKey(orgId).PK, entity: 'billing_event', currency: 'credits', ...event },
  oldImage: undefined,
});

describe('GET /organizations/{organization_id}/credit-grants', () => {
  it('lists the grants newest first with what remains and the debt, paged by a signed cursor', async () => {
    // Prepare
    const { orgId, users } = await workspace({ credits: 10 });
    const expiring = await grantCredits(orgId, 5, new Date(), 'promo', { source: 'promotional', expiresAt: inDays(30) });
    const later = await grantCredits(orgId, 7);
    const token = tokenFor(users.owner);

    // Act
    const first = await call(listGrantsHandler, { url: grantsUrl(orgId, '?limit=2'), token });
    const rest = await call(listGrantsHandler, { url: grantsUrl(orgId, `?limit=2&cursor=${first.body.next_cursor}`), token });
    const expired = await call(listGrantsHandler, { url: grantsUrl(orgId, '?status=expired'), token });

    // Assess
    expect(first.status).toBe(200);
    expect(first.body.grants).toEqual([
      {
        id: later.grant.id,
        source: 'operator',
        credits: 7,
        remaining: 7,
        status: 'active',
        expires_at: null,
        expired_credits: 0,
        purchase_id: null,
        created_at: later.grant.created_at,
      },
      expect.objectContaining({ id: expiring.grant.id, source: 'promotional', expires_at: expiring.grant.expires_at, remaining: 5 }),
    ]);
    expect([first.body.debt, first.body.has_more]).toEqual([0, true]);
    expect(rest.body).toEqual({
      grants: [expect.objectContaining({ source: 'operator', credits: 10, remaining: 10, expires_at: null })],
      debt: 0,
      next_cursor: null,
      has_more: false,
    });
    expect(expired.body).toEqual({ grants: [], debt: 0, next_cursor: null, has_more: false });
    expect(later.event.metadata).toEqual({ reason: 'credits granted by an operator', grant_id: later.grant.id });
  });

  it('answers owners only: editors and viewers 403, API keys 403 api_key_not_allowed, strangers and unknown organizations one 404', async () => {
    // Prepare
    const { orgId, users } = await workspace({ credits: 1 });
    const key = await call(createKey, {
      method: 'POST',
      url: `/organizations/${orgId}/api-keys`,
      token: tokenFor(users.owner),
      body: { name: 'k', role: 'editor' },
    });

    // Act
    const [editor, viewer, apiKey, stranger, unknown] = await Promise.all([
      call(listGrantsHandler, { url: grantsUrl(orgId), token: tokenFor(users.editor) }),
      call(listGrantsHandler, { url: grantsUrl(orgId), token: tokenFor(users.viewer) }),
      call(listGrantsHandler, { url: grantsUrl(orgId), token: key.body.token }),
      call(listGrantsHandler, { url: grantsUrl(orgId), token: tokenFor(uniqueId('stranger_')) }),
      call(listGrantsHandler, { url: grantsUrl(uniqueId('org_')), token: tokenFor(users.owner) }),
    ]);

    // Assess
    const forbidden = { code: 'forbidden', message: 'only owners of the organization can change it, its members and its keys' };
    expect([editor.status, withoutRequestId(editor.body)]).toEqual([403, forbidden]);
    expect([viewer.status, withoutRequestId(viewer.body)]).toEqual([403, forbidden]);
    expect([apiKey.status, apiKey.body.code]).toEqual([403, 'api_key_not_allowed']);
    expect(stranger.status).toBe(404);
    expect([unknown.status, withoutRequestId(unknown.body)]).toEqual([404, withoutRequestId(stranger.body)]);
  });

  it.each([
    ['status=spent', 'status'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['cursor=v1.forged.cursor', 'cursor'],
  ])('answers 400 naming the parameter for %s', async (query, name) => {
    const { orgId, users } = await workspace();
    const answer = await call(listGrantsHandler, { url: grantsUrl(orgId, `?${query}`), token: tokenFor(users.owner) });
    expect([answer.status, answer.body.code, answer.body.data?.issues?.[0]?.path]).toEqual([400, 'validation_failed', ['query', name]]);
  });

  it('refuses a cursor issued for another status', async () => {
    const { orgId, users } = await workspace({ credits: 1 });
    await grantCredits(orgId, 1);
    const token = tokenFor(users.owner);
    const page = await call(listGrantsHandler, { url: grantsUrl(orgId, '?limit=1'), token });
    const other = await call(listGrantsHandler, { url: grantsUrl(orgId, `?status=active&cursor=${page.body.next_cursor}`), token });
    expect([other.status, other.body.data?.issues?.[0]?.path]).toEqual([400, ['query', 'cursor']]);
  });
});

describe('the draw, from the change stream', () => {
  it('draws the grant expiring soonest first, ties the oldest, no expiry last; a refund returns to what its charge drew', async () => {
    // Prepare
    const { orgId, users } = await workspace({ credits: 10 });
    const far = await grantCredits(orgId, 5, new Date(), undefined, { expiresAt: inDays(30) });
    const soonOld = await grantCredits(orgId, 5, new Date(), undefined, { expiresAt: inDays(10) });
    const soonNew = await grantCredits(orgId, 5, new Date(Date.now() + 1), undefined, { expiresAt: soonOld.grant.expires_at });
    const opening = Object.keys(await remainingById(orgId)).find((id) => ![far, soonOld, soonNew].some((g) => g.grant.id === id));

    // Act
    const run = await chargeDirectly({ orgId, userId: users.owner, cost: 7 });
    await stream.catchUp();
    const drawn = await remainingById(orgId);
    expect(await refundRun(run, 'test')).toBe('refunded');
    const second = await chargeDirectly({ orgId, userId: users.owner, cost: 16 });
    await settleRun(second, undefined, settleNow());
    await stream.catchUp();

    // Assess
    expect(drawn).toEqual({ [opening as string]: 10, [far.grant.id]: 5, [soonOld.grant.id]: 0, [soonNew.grant.id]: 3 });
    expect(await remainingById(orgId)).toEqual({ [opening as string]: 9, [far.grant.id]: 0, [soonOld.grant.id]: 0, [soonNew.grant.id]: 0 });
    const listed = await call(listGrantsHandler, { url: grantsUrl(orgId, '?status=depleted'), token: tokenFor(users.owner) });
    expect(listed.body.grants.map((grant: { id: string }) => grant.id).sort()).toEqual(
      [far, soonOld, soonNew].map((g) => g.grant.id).sort(),
    );
    expect(await figures(orgId)).toEqual({ balance: 9, grants: 9, events: 9 });
  });

  it("draws a purchase's reversal from the grant it names first, then the one expiring soonest", async () => {
    // Prepare: a grant expiring soon, and one that never expires standing for the purchase's.
    const { orgId } = await workspace();
    const soon = await grantCredits(orgId, 5, new Date(), undefined, { expiresAt: inDays(10) });
    const bought = await grantCredits(orgId, 20);
    await stream.catchUp();
    const reversal = (sequenceNumber: string, amount: number) =>
      recordOf(orgId, sequenceNumber, {
        id: `evt_${uniqueId('')}`,
        type: 'credits.reversed',
        created_at: new Date().toISOString(),
        amount,
        metadata: { purchase_id: 'pur_x', reason: 'refund', payment_intent_id: 'pi_x', grant_id: bought.grant.id },
      });

    // Act
    await applyLedgerRecords([reversal('1', -8)]);
    const afterFirst = await remainingById(orgId);
    await applyLedgerRecords([reversal('2', -15)]);

    // Assess: the named grant first, though another expires sooner; then the soonest.
    expect(afterFirst).toMatchObject({ [bought.grant.id]: 12, [soon.grant.id]: 5 });
    expect(await remainingById(orgId)).toMatchObject({ [bought.grant.id]: 0, [soon.grant.id]: 2 });
  });

  it('makes debt of a charge no grant covers, has a new grant pay it first, and applies a redelivered record once', async () => {
    // Prepare: a charge whose record reaches the ledger before any grant's (another shard's, say).
    const { orgId } = await workspace();
    const charge = recordOf(orgId, '1', {
      id: `evt_${uniqueId('')}`,
      type: 'social_operation.charged',
      created_at: new Date().toISOString(),
      amount: -3,
      metadata: { operation: 'x_profile', user_id: 'u', charge_id: 'c' },
    });

    // Act
    const first = await applyLedgerRecords([charge]);
    const again = await applyLedgerRecords([charge, charge]);
    const inDebt = (await readGrantState(orgId)).ledger?.debt;
    const granted = await grantCredits(orgId, 5);
    await stream.catchUp();

    // Assess
    expect([first, again, inDebt]).toEqual([undefined, undefined, 3]);
    const state = await readGrantState(orgId);
    expect([state.ledger?.debt, state.grants.map((grant) => [grant.id, grant.remaining])]).toEqual([0, [[granted.grant.id, 2]]]);
  });

  it('fails a refund whose charge is not drawn yet, so that its batch comes again, and applies it after the charge', async () => {
    // Prepare
    const { orgId } = await workspace({ credits: 10 });
    const chargeId = `evt_${uniqueId('')}`;
    const now = new Date().toISOString();
    const charge = recordOf(orgId, '10', { id: chargeId, type: 'social_operation.charged', created_at: now, amount: -4, metadata: {} });
    const refund = recordOf(orgId, '11', {
      id: `evt_${uniqueId('')}`,
      type: 'social_operation.refunded',
      created_at: now,
      amount: 4,
      metadata: { charge_id: chargeId },
    });

    // Act
    const early = await applyLedgerRecords([refund]);
    const inOrder = await applyLedgerRecords([charge, refund]);

    // Assess
    expect([early, inOrder]).toEqual(['11', undefined]);
    expect(Object.values(await remainingById(orgId))).toEqual([10]);
  });
});

describe('expiry', () => {
  it('takes what a grant has left off the balance once, with a credits.expired event; nothing for 0', async () => {
    // Prepare
    const { orgId, users } = await workspace({ credits: 4 });
    const lapsing = await grantCredits(orgId, 6, new Date(), undefined, { expiresAt: inDays(1) });
    const spent = await grantCredits(orgId, 2, new Date(), undefined, { expiresAt: inDays(0.5) });
    await settleRun(await chargeDirectly({ orgId, userId: users.owner, cost: 3 }), undefined, settleNow());
    await stream.catchUp();
    const after = new Date(Date.now() + DAY_MS + EXPIRY_MARGIN_MS + 1_000);

    // Act
    const pass = await expireDueGrants(after);
    const again = await expireDueGrants(after);

    // Assess
    expect([pass.expired, pass.credits, again.expired]).toEqual([1, 5, 0]);
    const { grants } = await readGrantState(orgId);
    expect(grants.find((grant) => grant.id === lapsing.grant.id)).toMatchObject({ remaining: 0, expired_credits: 5, status: 'expired' });
    expect(grants.find((grant) => grant.id === spent.grant.id)).toMatchObject({ remaining: 0, expired_credits: 0, status: 'expired' });
    const expired = (await listAllBillingEvents(orgId)).filter((event) => event.type === 'credits.expired');
    expect(expired.map((event) => [event.amount, event.metadata])).toEqual([[-5, { grant_id: lapsing.grant.id }]]);
    await stream.catchUp();
    expect(await figures(orgId)).toEqual({ balance: 4, grants: 4, events: 4 });
  });

  it('never takes the balance below zero: the balance is authoritative', async () => {
    // Prepare: a balance lower than what the grant is thought to hold.
    const { orgId } = await workspace();
    const lapsing = await grantCredits(orgId, 6, new Date(), undefined, { expiresAt: inDays(1) });
    await stream.catchUp();
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: orgKey(orgId),
        UpdateExpression: 'SET credits = :two',
        ExpressionAttributeValues: { ':two': 2 },
      }),
    );

    // Act
    const pass = await expireDueGrants(new Date(Date.now() + DAY_MS + EXPIRY_MARGIN_MS + 1_000));

    // Assess
    expect([pass.credits, (await getOrganization(orgId))?.credits]).toEqual([2, 0]);
    const { grants } = await readGrantState(orgId);
    expect(grants.find((grant) => grant.id === lapsing.grant.id)).toMatchObject({ remaining: 4, expired_credits: 2, status: 'expired' });
  });

  it('warns once per grant with credits left, within a pass of a creation less than 7 days ahead', async () => {
    const { orgId } = await workspace();
    const soon = await grantCredits(orgId, 3, new Date(), undefined, { expiresAt: inDays(3) });
    const first = await expireDueGrants();
    const second = await expireDueGrants();
    const { grants } = await readGrantState(orgId);
    expect(first.warned).toBeGreaterThanOrEqual(1);
    expect(second.warned).toBe(0);
    expect(grants.find((grant) => grant.id === soon.grant.id)?.warned_at).not.toBeNull();
  });
});

const adminTable = [
  '--table',
  String(process.env.TABLE_NAME),
  '--endpoint',
  String(process.env.DYNAMODB_ENDPOINT),
  '--region',
  'us-east-1',
];
/** One CLI call through its own `main`, on this file's table. */
async function admin(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main([...args, ...adminTable], { out: (text) => (stdout += text), err: (text) => (stderr += text) });
  return { code, stdout, stderr };
}

describe('npm run admin -- credits grant', () => {
  it('prints { organization, event, grant } with the expiry and source given', async () => {
    const { orgId } = await workspace({ credits: 1 });
    const expiresAt = inDays(90);
    const out = await admin('credits', 'grant', '--org', orgId, '--amount', '4', '--source', 'promotional', '--expires-at', expiresAt);
    expect(out.code).toBe(0);
    const printed = JSON.parse(out.stdout);
    expect(printed.organization.credits).toBe(5);
    expect(printed.grant).toMatchObject({ source: 'promotional', credits: 4, remaining: 4, expires_at: expiresAt, status: 'active' });
    expect(printed.event.metadata.grant_id).toBe(printed.grant.id);
  });

  it.each([
    ['2030-01-01T00:00:00', 'Z or an offset'],
    ['not a date', 'Z or an offset'],
    ['2020-01-01T00:00:00Z', 'in the future'],
    [new Date(Date.now() + 11 * 366 * DAY_MS).toISOString(), 'at most 10 years'],
  ])('exits 2 for --expires-at %s', async (value, says) => {
    const out = await admin('credits', 'grant', '--org', 'org_x', '--amount', '1', '--expires-at', value);
    expect([out.code, out.stderr]).toEqual([2, expect.stringContaining(says)]);
  });

  it('exits 2 for a --source other than operator or promotional', async () => {
    const out = await admin('credits', 'grant', '--org', 'org_x', '--amount', '1', '--source', 'purchase');
    expect([out.code, out.stderr]).toEqual([2, expect.stringContaining('operator or promotional')]);
  });
});

describe('the invariant after a concurrent burst', () => {
  it('balance = Σ remaining − debt = Σ billing-event amounts, once the stream is read', async () => {
    // Prepare: credits for every charge at once (costs 1 to 3), before any refund comes back.
    const { runs, credits } = atDepth({ runs: 12, credits: 40 }, { runs: 60, credits: 200 });
    const { orgId, users } = await workspace({ credits });

    // Act: charges (half refunded), and grants (some expiring), all at once.
    await Promise.all([
      ...Array.from({ length: runs }, async (_, i) => {
        const run = await chargeDirectly({ orgId, userId: users.owner, cost: 1 + (i % 3) });
        if (i % 2 === 0) await refundRun(run, 'burst');
        else await settleRun(run, undefined, settleNow());
      }),
      ...Array.from({ length: 3 }, (_, i) => grantCredits(orgId, 5, new Date(), undefined, { expiresAt: i === 0 ? null : inDays(5 + i) })),
    ]);
    await stream.catchUp();

    // Assess
    const { balance, grants, events } = await figures(orgId);
    expect([grants, events]).toEqual([balance, balance]);
  });
});

describe('an organization from before grants', () => {
  const MINUTE_MS = 60_000;
  const ago = (ms: number) => new Date(Date.now() - ms);

  /**
   * An organization as the code before grants left it: no ledger, no grant, and a balance moved
   * with each billing event (a grant's event naming no grant). Its records are held: the grants
   * consumer meets it only when released.
   */
  async function legacyOrganization(openingCredits: number, openedAt: Date) {
    const { orgId, users } = await workspace();
    await hold(orgId);
    await db().send(new DeleteCommand({ TableName: tableName(), Key: grantLedgerKey(orgId) }));
    const opening = newBillingEvent({
      type: 'credits.granted',
      title: 'Credits granted',
      description: 'opening',
      amount: openingCredits,
      now: openedAt,
    });
    await applyBillingEvent(orgId, { ...opening, metadata: { reason: 'credits granted by an operator' } });
    return { orgId, users };
  }
  const settled = async (run: PendingRun) => settleRun(run, undefined, settleNow());

  it('sums the history before the cutoff into one operator grant, applies the rest once, and converts once under two consumers', async () => {
    // Prepare: settled history (a grant, charges, a refund), a charge before the cutoff refunded
    // after it, and recent charges, a refund and a deduction; 66 credits in all, 83 before the cutoff.
    const { orgId, users } = await legacyOrganization(100, ago(180 * MINUTE_MS));
    const charge = (cost: number, now: Date) => chargeDirectly({ orgId, userId: users.owner, cost, now });
    await settled(await charge(10, ago(120 * MINUTE_MS)));
    expect(await refundRun(await charge(5, ago(120 * MINUTE_MS)), 'old', { now: ago(119 * MINUTE_MS) })).toBe('refunded');
    const beforeCutoff = await charge(7, ago(16 * MINUTE_MS));
    await settled(await charge(20, ago(5 * MINUTE_MS)));
    expect(await refundRun(beforeCutoff, 'late')).toBe('refunded');
    expect(await refundRun(await charge(3, ago(MINUTE_MS)), 'recent')).toBe('refunded');
    await deductCredits(orgId, 4, 'recent deduction', TEST_OPERATOR);
    const records = await takeHeld(orgId);
    held.delete(orgId);

    // Act: two consumers meet the organization at once, then the stream delivers it all again.
    const started = Date.now();
    await Promise.all([deliver(records), deliver(records)]);
    const converted = await readGrantState(orgId);
    await redeliver(orgId);
    await stream.catchUp();

    // Assess
    const cutoff = converted.ledger?.cutoff ?? '';
    expect(Date.parse(cutoff)).toBeGreaterThanOrEqual(started - LEGACY_CUTOFF_MS);
    expect(Date.parse(cutoff)).toBeLessThanOrEqual(Date.now() - LEGACY_CUTOFF_MS);
    expect(converted.ledger?.debt).toBe(0);
    expect(converted.grants.map(grantView)).toEqual([
      {
        id: expect.stringMatching(/^grt_[0-9a-f]{32}$/),
        source: 'operator',
        credits: 83,
        remaining: 66,
        status: 'active',
        expires_at: null,
        expired_credits: 0,
        purchase_id: null,
        created_at: cutoff,
      },
    ]);
    expect(await readGrantState(orgId)).toEqual(converted);
    expect(await figures(orgId)).toEqual({ balance: 66, grants: 66, events: 66 });
  });

  it('gives a refund after the cutoff of a charge before it a grant when the history left none (never a debt below zero)', async () => {
    // Prepare: history summing to 0, the charge's refund after the cutoff.
    const { orgId, users } = await legacyOrganization(10, ago(60 * MINUTE_MS));
    const run = await chargeDirectly({ orgId, userId: users.owner, cost: 10, now: ago(16 * MINUTE_MS) });
    expect(await refundRun(run, 'late')).toBe('refunded');
    const refund = (await listAllBillingEvents(orgId)).find((event) => event.type === 'social_operation.refunded');

    // Act
    await release(orgId);
    await redeliver(orgId);

    // Assess
    const state = await readGrantState(orgId);
    expect(state.ledger?.debt).toBe(0);
    expect(state.grants.map(grantView)).toEqual([
      {
        id: expect.stringMatching(/^grt_[0-9a-f]{32}$/),
        source: 'operator',
        credits: 10,
        remaining: 10,
        status: 'active',
        expires_at: null,
        expired_credits: 0,
        purchase_id: null,
        created_at: refund?.created_at,
      },
    ]);
    expect(await figures(orgId)).toEqual({ balance: 10, grants: 10, events: 10 });
  });

  describe('npm run admin -- credits migrate-grants', () => {
    const LEGACY_GRANT_ID = /^grt_[0-9a-f]{32}$/;
    /** A legacy organization of 50 credits an hour ago, a charge of 8 before the cutoff and one of 5 after it: a grant of 42 holding 37. */
    async function legacyWithHistory() {
      const legacy = await legacyOrganization(50, ago(60 * MINUTE_MS));
      const charge = (cost: number, now: Date) => chargeDirectly({ orgId: legacy.orgId, userId: legacy.users.owner, cost, now });
      await settled(await charge(8, ago(30 * MINUTE_MS)));
      await settled(await charge(5, ago(MINUTE_MS)));
      return legacy;
    }
    const migrate = async (...args: string[]) => {
      const out = await admin('credits', 'migrate-grants', ...args);
      return { ...out, json: out.code === 0 ? JSON.parse(out.stdout) : undefined };
    };

    it('converts every organization without a ledger as its next event would, leaves the others alone, and nothing the second time', async () => {
      // Prepare: a legacy organization no event has brought to the ledger, and one with its ledger.
      const { orgId } = await legacyWithHistory();
      const current = await workspace({ credits: 7 });
      await stream.catchUp();
      const untouched = await readGrantState(current.orgId);

      // Act
      const first = await migrate();
      const second = await migrate();
      const paged = await migrateGrants({ pageSize: 2 });
      await release(orgId);

      // Assess: the grant as the lazy conversion makes it; its records, released, change nothing.
      expect(first.code).toBe(0);
      const { organizations } = first.json;
      expect(first.json.converted + first.json.already).toBe(organizations);
      expect(first.json.converted).toBeGreaterThanOrEqual(1);
      expect(first.json.grants).toContainEqual({
        organization: orgId,
        grant_id: expect.stringMatching(LEGACY_GRANT_ID),
        credits: 42,
        remaining: 37,
      });
      expect(first.json.grants.map((grant: { organization: string }) => grant.organization)).not.toContain(current.orgId);
      const converted = await readGrantState(orgId);
      expect(converted.grants.map(grantView)).toEqual([
        expect.objectContaining({ source: 'operator', credits: 42, remaining: 37, status: 'active', created_at: converted.ledger?.cutoff }),
      ]);
      expect(converted.ledger?.debt).toBe(0);
      expect(await figures(orgId)).toEqual({ balance: 37, grants: 37, events: 37 });
      expect(await readGrantState(current.orgId)).toEqual(untouched);
      expect(second).toMatchObject({ code: 0, json: { organizations, converted: 0, already: organizations, grants: [] } });
      // Page after page, the directory's every organization: the same count as one page of 100.
      expect(paged).toEqual({ organizations, converted: 0, already: organizations, grants: [] });
    });

    it('--org converts that organization only, then finds it converted', async () => {
      // Prepare
      const named = await legacyWithHistory();
      const other = await legacyOrganization(20, ago(60 * MINUTE_MS));

      // Act
      const first = await migrate('--org', named.orgId);
      const again = await migrate('--org', named.orgId);

      // Assess
      expect(first).toMatchObject({
        code: 0,
        json: {
          organizations: 1,
          converted: 1,
          already: 0,
          grants: [{ organization: named.orgId, grant_id: expect.stringMatching(LEGACY_GRANT_ID), credits: 42, remaining: 37 }],
        },
      });
      expect(again).toMatchObject({ code: 0, json: { organizations: 1, converted: 0, already: 1, grants: [] } });
      expect((await readGrantState(other.orgId)).ledger).toBeNull();
      await release(named.orgId);
      await release(other.orgId);
      expect(await figures(named.orgId)).toEqual({ balance: 37, grants: 37, events: 37 });
      expect(await figures(other.orgId)).toEqual({ balance: 20, grants: 20, events: 20 });
    });

    it("racing the stream's lazy conversion, converts the organization once", async () => {
      // Prepare
      const { orgId } = await legacyWithHistory();
      const records = await takeHeld(orgId);
      held.delete(orgId);

      // Act
      const [out] = await Promise.all([migrate('--org', orgId), deliver(records)]);
      await redeliver(orgId);

      // Assess: whichever opened the ledger, one grant, every event applied once.
      expect(out.code).toBe(0);
      expect(out.json.converted + out.json.already).toBe(1);
      const { grants } = await readGrantState(orgId);
      expect(grants.map(grantView)).toEqual([
        expect.objectContaining({ id: expect.stringMatching(LEGACY_GRANT_ID), credits: 42, remaining: 37 }),
      ]);
      expect(await figures(orgId)).toEqual({ balance: 37, grants: 37, events: 37 });
    });

    it.each([
      [['--org', 'acme'], 2, 'credits migrate-grants: --org must look like org_'],
      [['--org'], 2, 'credits migrate-grants: --org needs a value'],
      [['--all'], 2, 'credits migrate-grants: unknown option --all'],
      [['org_x'], 2, 'credits migrate-grants: unexpected argument "org_x"'],
      [['--org', 'org_missing_migrate'], 1, 'organization org_missing_migrate does not exist'],
    ])('%j exits %i, naming what is wrong, before converting anything', async (args, code, says) => {
      const out = await migrate(...args);
      expect(out).toMatchObject({ code, stdout: '', stderr: expect.stringContaining(says) });
    });
  });
});

const byText = (a: unknown, b: unknown) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1);

describe('a refund to an expired grant', () => {
  /** A promotional grant of 5 expiring in a day, 3 of it drawn by a charge, then expired (2 credits). */
  async function expiredAfterACharge() {
    const { orgId, users } = await workspace();
    const owner = tokenFor(users.owner);
    const hook = await receiver();
    await call(createWebhook, {
      method: 'POST',
      url: `/organizations/${orgId}/webhooks`,
      token: owner,
      body: { url: hook.url, events: ['credits.expired'] },
    });
    const promo = await grantCredits(orgId, 5, new Date(), 'promo', { source: 'promotional', expiresAt: inDays(1) });
    const run = await chargeDirectly({ orgId, userId: users.owner, cost: 3 });
    await stream.catchUp();
    await expireDueGrants(new Date(Date.now() + DAY_MS + EXPIRY_MARGIN_MS + 1_000));
    await stream.catchUp();
    expect(await getOrganization(orgId)).toMatchObject({ credits: 0 });
    return { orgId, run, grantId: promo.grant.id, hook };
  }
  /** The billing events as [type, amount, grant], in no order: a pass a day ahead dates its expiry a day ahead. */
  const ledgerEvents = async (orgId: string) =>
    (await listAllBillingEvents(orgId)).map((event) => [event.type, event.amount, event.metadata.grant_id]).sort(byText);
  const grantOf = async (orgId: string, id: string) =>
    grantView(
      defined(
        (await readGrantState(orgId)).grants.find((grant) => grant.id === id),
        id,
      ),
    );

  it("expires what comes back at once, in the ledger's transaction, with a credits.expired event and notice", async () => {
    // Prepare
    const { orgId, run, grantId, hook } = await expiredAfterACharge();

    // Act
    expect(await refundRun(run, 'failed')).toBe('refunded');
    await stream.catchUp();
    await redeliver(orgId);
    await drainJobs({ webhookBackoffMs: 20 });

    // Assess
    expect(await grantOf(orgId, grantId)).toMatchObject({ credits: 5, remaining: 0, status: 'expired', expired_credits: 5 });
    expect(await ledgerEvents(orgId)).toEqual(
      [
        ['credits.granted', 5, grantId],
        ['social_operation.charged', -3, undefined],
        ['credits.expired', -2, grantId],
        ['social_operation.refunded', 3, undefined],
        ['credits.expired', -3, grantId],
      ].sort(byText),
    );
    expect(await figures(orgId)).toEqual({ balance: 0, grants: 0, events: 0 });
    // One notice per expiry, in whatever order the deliveries land.
    expect(
      hook
        .events()
        .map((event) => event.data)
        .sort((a, b) => a.credits - b.credits),
    ).toEqual([
      { grant_id: grantId, source: 'promotional', credits: 2, balance: 0 },
      { grant_id: grantId, source: 'promotional', credits: 3, balance: 0 },
    ]);
  });

  it('leaves them to the next expiry pass, which takes no more than the balance, when the balance no longer holds them', async () => {
    // Prepare: the refund reaches the ledger after a deduction took 2 of its 3 credits off the
    // balance, and before that deduction is drawn.
    const { orgId, run, grantId } = await expiredAfterACharge();
    await hold(orgId);
    expect(await refundRun(run, 'failed')).toBe('refunded');
    const refundRecords = await takeHeld(orgId);
    await deductCredits(orgId, 2, 'adjustment', TEST_OPERATOR);

    // Act
    await deliver(refundRecords);
    const afterRefund = await grantOf(orgId, grantId);
    const pass = await expireDueGrants(new Date(Date.now() + 2 * DAY_MS));
    const afterPass = await grantOf(orgId, grantId);
    await release(orgId);
    await redeliver(orgId);

    // Assess
    expect(afterRefund).toMatchObject({ remaining: 3, status: 'expired', expired_credits: 2 });
    expect(pass.credits).toBeGreaterThanOrEqual(1);
    expect(afterPass).toMatchObject({ remaining: 2, status: 'expired', expired_credits: 3 });
    expect(await grantOf(orgId, grantId)).toMatchObject({ remaining: 0, status: 'expired', expired_credits: 3 });
    expect(await ledgerEvents(orgId)).toEqual(
      [
        ['credits.granted', 5, grantId],
        ['social_operation.charged', -3, undefined],
        ['credits.expired', -2, grantId],
        ['social_operation.refunded', 3, undefined],
        ['credits.deducted', -2, undefined],
        ['credits.expired', -1, grantId],
      ].sort(byText),
    );
    expect(await figures(orgId)).toEqual({ balance: 0, grants: 0, events: 0 });
  });
});

describe("credits.expiring and credits.expired, to the owners' endpoints", () => {
  async function subscribed() {
    const { orgId, users } = await workspace({ credits: 4 });
    const hook = await receiver();
    await call(createWebhook, {
      method: 'POST',
      url: `/organizations/${orgId}/webhooks`,
      token: tokenFor(users.owner),
      body: { url: hook.url, events: ['credits.expiring', 'credits.expired'] },
    });
    return { orgId, users, hook };
  }
  const envelope = (orgId: string, type: string, data: Record<string, unknown>) => ({
    id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
    type,
    created_at: expect.any(String),
    organization_id: orgId,
    data,
  });

  it('sends the warning within a pass of a creation less than 7 days ahead and the expiry once each, however often the records come', async () => {
    // Prepare
    const { orgId, users, hook } = await subscribed();
    const lapsing = await grantCredits(orgId, 6, new Date(), undefined, { expiresAt: inDays(1) });
    await settleRun(await chargeDirectly({ orgId, userId: users.owner, cost: 3 }), undefined, settleNow());
    await stream.catchUp();

    // Act
    await expireDueGrants();
    await expireDueGrants();
    await expireDueGrants(new Date(Date.now() + DAY_MS + EXPIRY_MARGIN_MS + 1_000));
    await stream.catchUp();
    await redeliver(orgId);
    await drainJobs({ webhookBackoffMs: 20 });

    // Assess: one of each, in whatever order the deliveries land.
    expect(hook.events().sort((a, b) => (a.type < b.type ? 1 : -1))).toEqual([
      envelope(orgId, 'credits.expiring', {
        grant_id: lapsing.grant.id,
        source: 'operator',
        remaining: 3,
        expires_at: lapsing.grant.expires_at,
      }),
      envelope(orgId, 'credits.expired', { grant_id: lapsing.grant.id, source: 'operator', credits: 3, balance: 4 }),
    ]);
  });

  it('warns of a grant further ahead 7 days before its expiry, once', async () => {
    // Prepare
    const { orgId, hook } = await subscribed();
    const later = await grantCredits(orgId, 5, new Date(), 'promo', { source: 'promotional', expiresAt: inDays(30) });
    const warnAt = Date.parse(defined(later.grant.expires_at, 'expires_at')) - 7 * DAY_MS;

    // Act
    await expireDueGrants();
    await stream.catchUp();
    const early = (await readGrantState(orgId)).grants.find((grant) => grant.id === later.grant.id)?.warned_at;
    await expireDueGrants(new Date(warnAt + 1_000));
    await expireDueGrants(new Date(warnAt + 2_000));
    await stream.catchUp();
    await redeliver(orgId);
    await drainJobs({ webhookBackoffMs: 20 });

    // Assess
    expect(early).toBeNull();
    expect(hook.events()).toEqual([
      envelope(orgId, 'credits.expiring', {
        grant_id: later.grant.id,
        source: 'promotional',
        remaining: 5,
        expires_at: later.grant.expires_at,
      }),
    ]);
  });
});
