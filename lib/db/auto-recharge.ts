/**
 * An organization's auto-recharge item (lib/db/keys.ts `autoRechargeKey`): the owner's settings,
 * the saved card, the month's recharges (reservations included), the one recharge in flight, the
 * next attempt due and the notices of its latest change. Every write is a put of the whole item
 * conditional on the version read (`version`), alone or in the transaction that claims, settles
 * or fails a recharge: what changes it is decided in lib/billing/recharge.ts from the item as
 * read, and a concurrent change makes the write fail and the decision be made again. Builds and
 * sends items; decides nothing.
 */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { conditionFailed, db, type TransactItem, tableName, transact } from './client.ts';
import { autoRechargeKey, RECHARGE_DUE_PK, rechargeDueIndexKey } from './keys.ts';
import { SWEEP_INDEX } from './table.ts';

export type DisabledReason = 'consecutive_failures' | 'dispute' | 'payment_method_removed';

export interface SavedCard {
  /** Stripe's PaymentMethod (`pm_…`) and the Customer it is attached to. */
  id: string;
  customer: string;
  brand: string;
  last4: string;
}

/** An event for the owners' endpoints, recorded with the change that causes it (lib/alerts/crossings.ts). */
export interface RechargeNotice {
  /** What makes it unique: the same cause, the same key (and the same event id). */
  key: string;
  type:
    | 'auto_recharge.failed'
    | 'auto_recharge.action_required'
    | 'auto_recharge.disabled'
    | 'auto_recharge.cap_reached'
    | 'auto_recharge.deferred';
  data: Record<string, unknown>;
}

export interface AutoRechargeRecord {
  orgId: string;
  enabled: boolean;
  threshold: number | null;
  credits: number | null;
  monthly_cap: number | null;
  /** The UTC month `recharged` counts ("2025-01"), null before the first recharge. */
  month: string | null;
  /** Credits recharged in `month`, the one in flight reserved. */
  recharged: number;
  consecutive_failures: number;
  disabled_reason: DisabledReason | null;
  /** The last recharge that succeeded. */
  last_recharge_at: string | null;
  /** When the next attempt is due (a retry, a deferral, a new month, a recharge in flight looked after). */
  next_attempt_at: string | null;
  card: SavedCard | null;
  /** Epoch seconds of the card's last change: a setup session older than it saves nothing. */
  card_changed_at: number;
  /** The purchase of the recharge in flight. */
  in_flight: string | null;
  sequence: number;
  /** `<month>#<cap>` of the last `auto_recharge.cap_reached`: once per month, again once the cap is raised. */
  cap_noticed: string | null;
  /** Where Stripe sends a customer back (`<base>/console?organization_id=<id>#billing`), from the owner's last request. */
  return_url: string | null;
  /** The notices of the latest change (published by the alerts consumer from its stream record). */
  notices: RechargeNotice[];
  /** 0: no item yet. */
  version: number;
}

export const emptyAutoRecharge = (orgId: string): AutoRechargeRecord => ({
  orgId,
  enabled: false,
  threshold: null,
  credits: null,
  monthly_cap: null,
  month: null,
  recharged: 0,
  consecutive_failures: 0,
  disabled_reason: null,
  last_recharge_at: null,
  next_attempt_at: null,
  card: null,
  card_changed_at: 0,
  in_flight: null,
  sequence: 0,
  cap_noticed: null,
  return_url: null,
  notices: [],
  version: 0,
});

const orNull = <T>(value: unknown): T | null => (value === undefined || value === null ? null : (value as T));
const numberOrNull = (value: unknown): number | null => (value === undefined || value === null ? null : Number(value));

export function autoRechargeOf(orgId: string, item: Record<string, unknown> | undefined): AutoRechargeRecord {
  if (!item) return emptyAutoRecharge(orgId);
  return {
    orgId,
    enabled: item.enabled === true,
    threshold: numberOrNull(item.threshold),
    credits: numberOrNull(item.credits),
    monthly_cap: numberOrNull(item.monthly_cap),
    month: orNull<string>(item.month),
    recharged: Number(item.recharged ?? 0),
    consecutive_failures: Number(item.consecutive_failures ?? 0),
    disabled_reason: orNull<DisabledReason>(item.disabled_reason),
    last_recharge_at: orNull<string>(item.last_recharge_at),
    next_attempt_at: orNull<string>(item.next_attempt_at),
    card: orNull<SavedCard>(item.card),
    card_changed_at: Number(item.card_changed_at ?? 0),
    in_flight: orNull<string>(item.in_flight),
    sequence: Number(item.sequence ?? 0),
    cap_noticed: orNull<string>(item.cap_noticed),
    return_url: orNull<string>(item.return_url),
    notices: (item.notices as RechargeNotice[] | undefined) ?? [],
    version: Number(item.version ?? 0),
  };
}

export async function getAutoRecharge(orgId: string): Promise<AutoRechargeRecord> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: autoRechargeKey(orgId), ConsistentRead: true }));
  return autoRechargeOf(orgId, Item);
}

/** Another change of the auto-recharge was written since it was read: read again and decide again. */
export class AutoRechargeChanged extends Error {}

/**
 * `next` put in place of `read`, only if the item is still at `read.version` (absent for 0); its
 * version one more, and in the due index while an attempt is due.
 */
export function autoRechargePut(read: AutoRechargeRecord, next: AutoRechargeRecord): TransactItem {
  const { orgId, version: _version, ...fields } = next;
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...autoRechargeKey(orgId),
        entity: 'auto_recharge',
        organization_id: orgId,
        ...fields,
        version: read.version + 1,
        ...(next.next_attempt_at === null ? {} : rechargeDueIndexKey(next.next_attempt_at, orgId)),
      },
      ConditionExpression: read.version === 0 ? 'attribute_not_exists(PK)' : 'version = :version',
      ...(read.version === 0 ? {} : { ExpressionAttributeValues: { ':version': read.version } }),
    },
  };
}

/**
 * Sends a transaction whose first item is `autoRechargePut`: AutoRechargeChanged when the item
 * changed since read; `others(reasons)` maps the other items' failures (or null: the SDK's error).
 */
export async function sendAutoRecharge(
  items: TransactItem[],
  others: (reasons: { Code?: string | undefined }[]) => Error | null = () => null,
): Promise<void> {
  await transact(items, (reasons) => (conditionFailed(reasons, 0) ? new AutoRechargeChanged() : others(reasons)));
}

/** Organizations whose auto-recharge has an attempt due by `nowIso`, the soonest first. */
export async function listDueRecharges(nowIso: string, limit: number): Promise<string[]> {
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: SWEEP_INDEX,
      KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK <= :now',
      // `~` sorts after every id character: an attempt due at exactly `nowIso` is included.
      ExpressionAttributeValues: { ':pk': RECHARGE_DUE_PK, ':now': `${nowIso}#~` },
      ProjectionExpression: 'organization_id',
      Limit: limit,
    }),
  );
  return (result.Items ?? []).map((item) => String(item.organization_id));
}
