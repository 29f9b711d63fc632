/**
 * Credit purchases (docs/funding.md): the purchase items, the organization's open checkouts with
 * its Stripe Customer (one slots item, so that the limit holds under any concurrency), and a
 * purchase's Idempotency-Key record. Builds and sends items; decides nothing (lib/billing/).
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { AutoRechargeChanged } from './auto-recharge.ts';
import { conditionFailed, db, type TransactItem, tableName, transact, updateIf } from './client.ts';
import {
  paymentMarkerKey,
  purchaseIdempotencyKey,
  purchaseKey,
  purchaseSlotsKey,
  purchasesPrefix,
  reconcilerCheckpointKey,
} from './keys.ts';

export type PurchaseStatus = 'open' | 'paid' | 'expired' | 'processing' | 'failed';

export interface PurchaseFailure {
  code: string;
  decline_code: string | null;
  message: string;
}

/** What an auto-recharge's purchase records of the rails it was claimed under (lib/billing/recharge.ts). */
export interface RechargeClaim {
  /** The organization's auto-recharge sequence: Stripe's idempotency key `auto-recharge:<org>:<sequence>`. */
  sequence: number;
  /** The UTC month ("2025-01") whose cap reserved it. */
  month: string;
  /** The month's recharges with this one reserved, and the cap then. */
  recharged_this_month: number;
  monthly_cap: number;
}

export interface PurchaseRecord {
  id: string;
  organization_id: string;
  source: 'checkout' | 'auto_recharge';
  /** As stored: an `open` checkout past `expires_at` reads as expired (lib/billing/purchases.ts). */
  status: PurchaseStatus;
  credits: number;
  amount: number;
  currency: string;
  checkout_session_id: string;
  checkout_url: string | null;
  payment_intent_id: string | null;
  failure: PurchaseFailure | null;
  reversed_credits: number;
  created_at: string;
  /** The owner who bought it; null for an auto-recharge. */
  created_by_id: string | null;
  expires_at: string;
  paid_at: string | null;
  /** An auto-recharge's claim; absent for a checkout. */
  recharge?: RechargeClaim;
}

export interface PurchaseSlots {
  /** Open checkouts: purchase id → its expiry (epoch seconds). */
  open: Record<string, number>;
  customerId: string | null;
  /** Every write of the item adds one: the condition of the next. */
  version: number;
}

export interface PurchaseKeyRecord {
  requestHash: string;
  purchaseId: string;
  createdAt: string;
  state: 'in_progress' | 'completed';
  owner: string;
  leaseUntilMs: number;
  expiresAt: number;
}

/** The organization's open checkouts are as many as it may have. */
export class PurchaseSlotsChanged extends Error {}

const purchaseOf = (item: Record<string, unknown>): PurchaseRecord => ({
  id: String(item.id),
  organization_id: String(item.organization_id),
  source: item.source === 'auto_recharge' ? 'auto_recharge' : 'checkout',
  status: item.status as PurchaseStatus,
  credits: Number(item.credits),
  amount: Number(item.amount),
  currency: String(item.currency),
  checkout_session_id: typeof item.checkout_session_id === 'string' ? item.checkout_session_id : '',
  checkout_url: typeof item.checkout_url === 'string' ? item.checkout_url : null,
  payment_intent_id: typeof item.payment_intent_id === 'string' ? item.payment_intent_id : null,
  failure: (item.failure as PurchaseFailure | undefined) ?? null,
  reversed_credits: Number(item.reversed_credits ?? 0),
  created_at: String(item.created_at),
  created_by_id: typeof item.created_by_id === 'string' ? item.created_by_id : null,
  expires_at: String(item.expires_at),
  paid_at: typeof item.paid_at === 'string' ? item.paid_at : null,
  ...(item.recharge ? { recharge: item.recharge as RechargeClaim } : {}),
});

/** The stored form of a purchase (its key, its entity), for a transaction that puts a new one. */
export function newPurchasePut(purchase: PurchaseRecord): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: { ...purchaseKey(purchase.organization_id, purchase.id), entity: 'purchase', ...purchase },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

/**
 * An auto-recharge's purchase changed from `from` (as read) to what `change` sets: `failed` with
 * its failure, or `open` with the page where its card is authenticated. Conditional on the status
 * read, so the engine, the webhook and the due pass never both move it.
 */
export function rechargePurchaseUpdate(
  purchase: PurchaseRecord,
  change: {
    status: 'failed' | 'open';
    failure: PurchaseFailure | null;
    paymentIntentId: string | null;
    checkout?: { sessionId: string; url: string; expiresAt: string };
  },
): TransactItem {
  const values: Record<string, unknown> = {
    ':status': change.status,
    ':from': purchase.status,
    ':failure': change.failure,
    ':pi': change.paymentIntentId,
    ':url': change.checkout?.url ?? null,
  };
  let set = '#status = :status, failure = :failure, payment_intent_id = :pi, checkout_url = :url';
  if (change.checkout) {
    set += ', checkout_session_id = :session, expires_at = :expires';
    values[':session'] = change.checkout.sessionId;
    values[':expires'] = change.checkout.expiresAt;
  }
  return {
    Update: {
      TableName: tableName(),
      Key: purchaseKey(purchase.organization_id, purchase.id),
      UpdateExpression: `SET ${set}`,
      ConditionExpression: '#status = :from',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: values,
    },
  };
}

export async function getPurchase(orgId: string, purchaseId: string): Promise<PurchaseRecord | null> {
  const { Item: item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: purchaseKey(orgId, purchaseId), ConsistentRead: true }),
  );
  return item ? purchaseOf(item) : null;
}

/** Purchases newest first, from after `afterId`, `limit` of them at most read (a filter may keep fewer). */
export async function queryPurchases(
  orgId: string,
  limit: number,
  afterId?: string,
): Promise<{ purchases: PurchaseRecord[]; lastId: string | undefined; more: boolean }> {
  const prefix = purchasesPrefix(orgId);
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': prefix.PK, ':prefix': prefix.skPrefix },
      ScanIndexForward: false,
      ConsistentRead: true,
      Limit: limit,
      ...(afterId === undefined ? {} : { ExclusiveStartKey: purchaseKey(orgId, afterId) }),
    }),
  );
  const purchases = (result.Items ?? []).map(purchaseOf);
  return { purchases, lastId: purchases.at(-1)?.id, more: result.LastEvaluatedKey !== undefined };
}

export async function getPurchaseSlots(orgId: string): Promise<PurchaseSlots> {
  const { Item: item } = await db().send(new GetCommand({ TableName: tableName(), Key: purchaseSlotsKey(orgId), ConsistentRead: true }));
  return {
    open: (item?.open as Record<string, number> | undefined) ?? {},
    customerId: typeof item?.stripe_customer_id === 'string' ? item.stripe_customer_id : null,
    version: Number(item?.version ?? 0),
  };
}

/**
 * The organization's Stripe Customer kept on its slots item (made before any checkout, for a card
 * saved first): the one already kept wins. The version moves, as for any write of the item.
 */
export async function rememberCustomer(orgId: string, customerId: string): Promise<string> {
  const { Attributes } = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: purchaseSlotsKey(orgId),
      UpdateExpression:
        'SET stripe_customer_id = if_not_exists(stripe_customer_id, :customer), #open = if_not_exists(#open, :none), entity = :entity, version = if_not_exists(version, :zero) + :one',
      ExpressionAttributeNames: { '#open': 'open' },
      ExpressionAttributeValues: { ':customer': customerId, ':none': {}, ':entity': 'purchase_slots', ':zero': 0, ':one': 1 },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return String(Attributes?.stripe_customer_id ?? customerId);
}

/**
 * A new checkout, in one transaction: the purchase, the slots item as read (`open` the new map,
 * the customer kept), and with an Idempotency-Key its record completed. The slots' version is the
 * condition, so two purchases at once cannot both take the last slot.
 */
export async function writeNewPurchase(
  purchase: PurchaseRecord,
  slots: { read: PurchaseSlots; open: Record<string, number>; customerId: string },
  key: { orgId: string; userId: string; keyHash: string; owner: string } | undefined,
): Promise<void> {
  const items: TransactItem[] = [
    {
      Update: {
        TableName: tableName(),
        Key: purchaseSlotsKey(purchase.organization_id),
        UpdateExpression:
          'SET #open = :open, version = :next, entity = :entity, stripe_customer_id = if_not_exists(stripe_customer_id, :customer)',
        ConditionExpression: slots.read.version === 0 ? 'attribute_not_exists(PK)' : 'version = :version',
        ExpressionAttributeNames: { '#open': 'open' },
        ExpressionAttributeValues: {
          ':open': slots.open,
          ':next': slots.read.version + 1,
          ':entity': 'purchase_slots',
          ':customer': slots.customerId,
          ...(slots.read.version === 0 ? {} : { ':version': slots.read.version }),
        },
      },
    },
    {
      Put: {
        TableName: tableName(),
        Item: { ...purchaseKey(purchase.organization_id, purchase.id), entity: 'purchase', ...purchase },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
  ];
  if (key) {
    items.push({
      Update: {
        TableName: tableName(),
        Key: purchaseIdempotencyKey(key.orgId, key.userId, key.keyHash),
        UpdateExpression: 'SET #state = :completed',
        ConditionExpression: '#owner = :owner',
        ExpressionAttributeNames: { '#state': 'state', '#owner': 'owner' },
        ExpressionAttributeValues: { ':completed': 'completed', ':owner': key.owner },
      },
    });
  }
  await transact(items, (reasons) => (conditionFailed(reasons, 0) ? new PurchaseSlotsChanged() : null));
}

export async function getPurchaseKeyRecord(
  orgId: string,
  userId: string,
  keyHash: string,
  nowMs = Date.now(),
): Promise<PurchaseKeyRecord | null> {
  const { Item: item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: purchaseIdempotencyKey(orgId, userId, keyHash), ConsistentRead: true }),
  );
  if (!item || Number(item.expires_at) <= Math.floor(nowMs / 1000)) return null;
  return {
    requestHash: String(item.request_hash),
    purchaseId: String(item.purchase_id),
    createdAt: String(item.created_at),
    state: item.state === 'completed' ? 'completed' : 'in_progress',
    owner: String(item.owner),
    leaseUntilMs: Number(item.lease_until_ms),
    expiresAt: Number(item.expires_at),
  };
}

/**
 * Claims a purchase's Idempotency-Key for `record.owner`: when none is held (or only an expired
 * one), or, with `deadOwner`, when that attempt still holds it with its lease run out (it died).
 * False when another request claimed it first.
 */
export async function claimPurchaseKey(
  orgId: string,
  userId: string,
  keyHash: string,
  record: Omit<PurchaseKeyRecord, 'state'>,
  at: { nowMs: number; deadOwner?: string | undefined },
): Promise<boolean> {
  const takeover = at.deadOwner !== undefined;
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...purchaseIdempotencyKey(orgId, userId, keyHash),
          entity: 'purchase_key',
          request_hash: record.requestHash,
          purchase_id: record.purchaseId,
          created_at: record.createdAt,
          state: 'in_progress',
          owner: record.owner,
          lease_until_ms: record.leaseUntilMs,
          expires_at: record.expiresAt,
        },
        ConditionExpression: takeover
          ? '#owner = :dead AND #state = :in_progress AND lease_until_ms < :nowMs'
          : 'attribute_not_exists(PK) OR expires_at <= :now',
        ...(takeover
          ? {
              ExpressionAttributeNames: { '#owner': 'owner', '#state': 'state' },
              ExpressionAttributeValues: { ':dead': at.deadOwner, ':in_progress': 'in_progress', ':nowMs': at.nowMs },
            }
          : { ExpressionAttributeValues: { ':now': Math.floor(at.nowMs / 1000) } }),
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

/** Lets a key go after its purchase could not be made (nothing was written under it). */
export async function releasePurchaseKey(orgId: string, userId: string, keyHash: string, owner: string): Promise<void> {
  try {
    await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: purchaseIdempotencyKey(orgId, userId, keyHash),
        ConditionExpression: '#owner = :owner AND #state = :in_progress',
        ExpressionAttributeNames: { '#owner': 'owner', '#state': 'state' },
        ExpressionAttributeValues: { ':owner': owner, ':in_progress': 'in_progress' },
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
}

// ---------------------------------------------------------------- settling and reversing (lib/billing/settle.ts decides)

/** The PaymentIntent was credited already: its marker is there. */
export class PaymentAlreadySettled extends Error {}
/** The organization or the purchase is gone, or the purchase is paid by another payment: nothing was written. */
export class PurchaseNotSettleable extends Error {}
/** Another reversal of this purchase was written since it was read: read again. */
export class ReversalChanged extends Error {}

/** The marker that `paymentIntentId` was credited (lib/db/keys.ts `paymentMarkerKey`): fails if it is there. */
export function paymentMarkerPut(paymentIntentId: string, purchase: PurchaseRecord, at: string): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...paymentMarkerKey(paymentIntentId),
        entity: 'payment_marker',
        organization_id: purchase.organization_id,
        purchase_id: purchase.id,
        credits: purchase.credits,
        settled_at: at,
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

/** The purchase paid by `paymentIntentId`: its checkout URL dropped, unless it is paid already. */
export function purchasePaidUpdate(purchase: PurchaseRecord, paymentIntentId: string, paidAt: string): TransactItem {
  // An auto-recharge's, only from the status read: the auto-recharge item written beside it was
  // decided from that status (a reservation held or released).
  const recharge = purchase.source === 'auto_recharge';
  return {
    Update: {
      TableName: tableName(),
      Key: purchaseKey(purchase.organization_id, purchase.id),
      UpdateExpression: 'SET #status = :paid, paid_at = :at, payment_intent_id = :pi, checkout_url = :null',
      ConditionExpression: recharge ? 'attribute_exists(PK) AND #status = :read' : 'attribute_exists(PK) AND #status <> :paid',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':paid': 'paid',
        ':at': paidAt,
        ':pi': paymentIntentId,
        ':null': null,
        ...(recharge ? { ':read': purchase.status } : {}),
      },
    },
  };
}

/**
 * The purchase's open-checkout slot freed. The version moves too: a new checkout writes the whole
 * map as it read it, so one read before this must not put the slot back.
 */
export function slotFreedUpdate(orgId: string, purchaseId: string): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: purchaseSlotsKey(orgId),
      UpdateExpression: 'REMOVE #open.#purchase SET version = if_not_exists(version, :zero) + :one',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeNames: { '#open': 'open', '#purchase': purchaseId },
      ExpressionAttributeValues: { ':zero': 0, ':one': 1 },
    },
  };
}

/**
 * Sends a settle transaction whose first item is the payment's marker: PaymentAlreadySettled when
 * the marker was there, PurchaseNotSettleable when another item's condition failed.
 */
export async function sendSettle(items: TransactItem[], autoRechargeIndex?: number): Promise<void> {
  await transact(items, (reasons) =>
    conditionFailed(reasons, 0)
      ? new PaymentAlreadySettled()
      : autoRechargeIndex !== undefined && conditionFailed(reasons, autoRechargeIndex)
        ? new AutoRechargeChanged()
        : reasons.some((reason) => reason.Code === 'ConditionalCheckFailed')
          ? new PurchaseNotSettleable()
          : null,
  );
}

/** `reversed_credits` set to `total`, if still `seen` (as read) and the purchase is paid. */
export function purchaseReversedUpdate(purchase: PurchaseRecord, total: number): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: purchaseKey(purchase.organization_id, purchase.id),
      UpdateExpression: 'SET reversed_credits = :total',
      ConditionExpression: '#status = :paid AND (reversed_credits = :seen OR (attribute_not_exists(reversed_credits) AND :seen = :zero))',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':total': total, ':seen': purchase.reversed_credits, ':paid': 'paid', ':zero': 0 },
    },
  };
}

/** Sends a reversal whose first item is the purchase's update: ReversalChanged when it was changed since read. */
export async function sendReversal(items: TransactItem[], autoRechargeIndex?: number): Promise<void> {
  await transact(items, (reasons) =>
    conditionFailed(reasons, 0)
      ? new ReversalChanged()
      : autoRechargeIndex !== undefined && conditionFailed(reasons, autoRechargeIndex)
        ? new AutoRechargeChanged()
        : reasons.some((r) => r.Code === 'ConditionalCheckFailed')
          ? new PurchaseNotSettleable()
          : null,
  );
}

/** The last failed attempt of an open checkout (a declined card leaves it open). False when it is no longer open. */
export async function recordPurchaseFailure(orgId: string, purchaseId: string, failure: PurchaseFailure): Promise<boolean> {
  const updated = await updateIf({
    TableName: tableName(),
    Key: purchaseKey(orgId, purchaseId),
    UpdateExpression: 'SET failure = :failure',
    ConditionExpression: '#status = :open',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':failure': failure, ':open': 'open' },
  });
  return updated !== null;
}

/** An open checkout expired, its slot freed, in one transaction. False when it was no longer open. */
export async function expirePurchase(orgId: string, purchaseId: string): Promise<boolean> {
  try {
    await transact(
      [
        {
          Update: {
            TableName: tableName(),
            Key: purchaseKey(orgId, purchaseId),
            UpdateExpression: 'SET #status = :expired, checkout_url = :null',
            ConditionExpression: '#status = :open',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':expired': 'expired', ':open': 'open', ':null': null },
          },
        },
        slotFreedUpdate(orgId, purchaseId),
      ],
      (reasons) => (conditionFailed(reasons, 0) ? new PurchaseNotSettleable() : null),
    );
    return true;
  } catch (error) {
    if (error instanceof PurchaseNotSettleable) return false;
    throw error;
  }
}

/** Where the payments reconciler's last pass reached (epoch seconds of Stripe's event times), or null before the first. */
export async function getReconcilerCheckpoint(): Promise<number | null> {
  const { Item: item } = await db().send(new GetCommand({ TableName: tableName(), Key: reconcilerCheckpointKey(), ConsistentRead: true }));
  return item ? Number(item.reached) : null;
}

/** Moves the checkpoint forward only: two passes at once never take it back. */
export async function putReconcilerCheckpoint(reached: number): Promise<void> {
  await updateIf({
    TableName: tableName(),
    Key: reconcilerCheckpointKey(),
    UpdateExpression: 'SET reached = :reached, entity = :entity',
    ConditionExpression: 'attribute_not_exists(reached) OR reached < :reached',
    ExpressionAttributeValues: { ':reached': reached, ':entity': 'payments_reconciler' },
  });
}
