/**
 * Credit lanes of a hot organization (docs/scaling.md, "Credit lanes"): item builders and reads
 * only. Which items go into a fill, a return or a charge on a lane is decided by the money modules
 * (lib/billing/lanes.ts, lib/billing/paid-run.ts).
 *
 * A lane holds credits moved off the organization's balance for one payer (a member or an API
 * key) and one UTC month and day. The fill counted them in the organization's and the payer's
 * spend counters of that month and day, under every limit, so a charge on a lane needs neither
 * the balance item, nor a counter, nor the payer's membership:
 *
 *   balance         = organization.credits + Σ lane.credits
 *   spent (a scope) = counter.spent − Σ credits of the scope's lanes of that period
 *
 * Both hold at every instant: credits only move in transactions that keep them. Each payer has
 * LANES_PER_PAYER lanes, so its concurrent runs charge different items.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, queryAll, type TransactItem, tableName, updateIf } from './client.ts';
import { FILLED_LANES, laneKey, lanePartition, orgKey } from './keys.ts';
import type { TableKey } from './table.ts';

export { FILLED_LANES, laneKey };

/** One lane as stored (credits 0 when never filled). */
export interface Lane {
  orgId: string;
  payer: string;
  lane: number;
  credits: number;
  /** The UTC month ("2026-11") and day ("2026-11-29") its credits count in; absent when never filled. */
  month: string | undefined;
  day: string | undefined;
  /** Epoch ms of its last fill: the idle return takes its credits back RESERVATION_IDLE_SECONDS after. */
  filledAtMs: number;
  /** A setting its charges no longer check changed (limits, role, networks, a revocation): no charge until it is returned. */
  fenced: boolean;
}

export const laneOf = (item: Record<string, unknown>): Lane => ({
  orgId: String(item.org_id),
  payer: String(item.payer),
  lane: Number(item.lane),
  credits: Number(item.credits ?? 0),
  month: item.month === undefined ? undefined : String(item.month),
  day: item.day === undefined ? undefined : String(item.day),
  filledAtMs: Number(item.filled_at_ms ?? 0),
  fenced: item.fenced === true,
});

/** An unfilled lane, as a lane that was never written reads. */
export const emptyLane = (orgId: string, payer: string, lane: number): Lane => ({
  orgId,
  payer,
  lane,
  credits: 0,
  month: undefined,
  day: undefined,
  filledAtMs: 0,
  fenced: false,
});

/** Every lane of an organization (or of one payer of it), consistently: one Query. */
export async function readLanes(orgId: string, payer?: string): Promise<Lane[]> {
  const items = await queryAll({
    KeyConditionExpression: payer === undefined ? 'PK = :pk' : 'PK = :pk AND begins_with(SK, :payer)',
    ExpressionAttributeValues: { ':pk': lanePartition(orgId), ...(payer === undefined ? {} : { ':payer': `${payer}#` }) },
    ConsistentRead: true,
  });
  return items.map(laneOf);
}

/** One lane, consistently (a never-filled lane reads empty). */
export async function readLane(orgId: string, payer: string, lane: number): Promise<Lane> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: laneKey(orgId, payer, lane), ConsistentRead: true }));
  return result.Item ? laneOf(result.Item) : emptyLane(orgId, payer, lane);
}

/** Whether a counter or organization item says lanes were filled against it (its readers then count the lanes too). */
export const hasLanes = (item: Record<string, unknown> | undefined | null): boolean => item?.lanes === true;

/** What every fill and return changes on the items they move credits between: a read compares it before and after reading the lanes. */
export const laneMovesOf = (item: Record<string, unknown> | undefined | null): string =>
  `${String(item?.lane_moves ?? 0)}/${String(item?.credits ?? '')}/${String(item?.spent ?? '')}`;

/**
 * A charge's part on a lane: its cost off the lane's credits, only while the lane holds that much
 * for the charge's own month and day, is not fenced and (for an API key with an expiry) its key
 * has not expired. On failure the stored lane comes back: the charge fills it, returns it or
 * tries another.
 */
export function laneChargeItem(key: TableKey, cost: number, periods: { month: string; day: string }, now: Date): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'SET credits = credits - :cost',
      ConditionExpression:
        'credits >= :cost AND #month = :month AND #day = :day AND attribute_not_exists(fenced) AND ' +
        '(attribute_not_exists(payer_expires_at) OR payer_expires_at > :now)',
      ExpressionAttributeNames: { '#month': 'month', '#day': 'day' },
      ExpressionAttributeValues: { ':cost': cost, ':month': periods.month, ':day': periods.day, ':now': now.toISOString() },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

/**
 * A fill's part on the lane: it holds `had.credits` of the same month and day (or nothing), is not
 * fenced, and then holds `had.credits + amount`, listed in GSI1 for the idle return. `expiresAt`:
 * the paying API key's expiry, which charges on the lane then check.
 */
export function laneFillItem(
  had: Lane,
  amount: number,
  periods: { month: string; day: string },
  now: Date,
  expiresAt: string | null,
): TransactItem {
  const unchanged =
    had.credits === 0
      ? '(attribute_not_exists(PK) OR (credits = :zero AND attribute_not_exists(fenced)))'
      : '(credits = :had AND #month = :month AND #day = :day AND attribute_not_exists(fenced))';
  const key = laneKey(had.orgId, had.payer, had.lane);
  const nowMs = now.getTime();
  return {
    Update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression:
        'SET credits = :total, #month = :month, #day = :day, filled_at_ms = :now, entity = :entity, org_id = :org, ' +
        `payer = :payer, lane = :lane, GSI1PK = :listed, GSI1SK = :since${expiresAt ? ', payer_expires_at = :expires' : ''}` +
        `${expiresAt ? '' : ' REMOVE payer_expires_at'}`,
      ConditionExpression: unchanged,
      ExpressionAttributeNames: { '#month': 'month', '#day': 'day' },
      ExpressionAttributeValues: {
        ':total': had.credits + amount,
        ':month': periods.month,
        ':day': periods.day,
        ':now': nowMs,
        ':entity': 'credit_lane',
        ':org': had.orgId,
        ':payer': had.payer,
        ':lane': had.lane,
        ':listed': FILLED_LANES,
        ':since': `${String(nowMs).padStart(15, '0')}#${key.PK}#${key.SK}`,
        ...(expiresAt ? { ':expires': expiresAt } : {}),
        ...(had.credits === 0 ? { ':zero': 0 } : { ':had': had.credits }),
      },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

/** A return's part on the lane: from the credits read (and its fence) to an empty, unlisted lane; the stored lane on failure. */
export function laneEmptyItem(had: Lane): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: laneKey(had.orgId, had.payer, had.lane),
      UpdateExpression: 'SET credits = :zero REMOVE fenced, GSI1PK, GSI1SK',
      ConditionExpression: 'credits = :had',
      ExpressionAttributeValues: { ':zero': 0, ':had': had.credits },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

/** A condition that the organization is cold (no lane was ever filled from it): a change that holds it needs no fence. */
export const orgStillColdItem = (orgId: string): TransactItem => ({
  ConditionCheck: { TableName: tableName(), Key: orgKey(orgId), ConditionExpression: 'attribute_not_exists(lanes)' },
});

/**
 * After a change of what a charge on a lane no longer checks (the organization's limits or
 * networks; a member's role or limits, a removal; a key's limits, a revocation): every lane it
 * concerns that holds credits is fenced, so none takes a charge once the change has answered.
 * A fenced lane goes back to the balance before it is filled again, under the new settings (a
 * fill checks them as read, so a fill racing the change is refused by its conditions, or was
 * written before this read and is fenced by it). `payer`: one member's or key's lanes; otherwise
 * all of them. One Query, and one write a lane that holds credits (none for a cold organization).
 */
export async function fenceLanes(orgId: string, payer?: string): Promise<number> {
  const held = (await readLanes(orgId, payer)).filter((lane) => lane.credits > 0 && !lane.fenced);
  await Promise.all(
    held.map((lane) =>
      updateIf({
        TableName: tableName(),
        Key: laneKey(lane.orgId, lane.payer, lane.lane),
        UpdateExpression: 'SET fenced = :true',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':true': true },
      }),
    ),
  );
  return held.length;
}
