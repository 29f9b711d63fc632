/**
 * Credit grants as stored (docs/funding.md, "Grants and expiry"): one item per addition of credits,
 * the organization's grants ledger (its debt) and the markers of the billing events applied to
 * them, all in the organization's grants partition (lib/db/keys.ts). Item builders, reads and the
 * decoding of what a read or a cancelled transaction found: which items go into one transaction,
 * and what a draw takes from which grant, is decided by lib/billing/grants.ts and
 * lib/billing/ledger.ts.
 *
 * A grant's expiry is stored as `expiry` (ISO 8601), not `expires_at`: that is the table's TTL
 * attribute (lib/db/table.ts), and the API's `expires_at` is a date, never a purge.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll, db, queryAll, type TransactItem, tableName } from './client.ts';
import {
  GRANTS_DUE_PK,
  grantAt,
  grantDueIndexKey,
  grantKey,
  grantLedgerKey,
  grantPosition,
  grantsPrefix,
  ledgerMarkerKey,
  orgIdOfGrantsPartition,
} from './keys.ts';
import { SWEEP_INDEX, type TableKey } from './table.ts';

export const GRANT_SOURCES = ['purchase', 'auto_recharge', 'operator', 'promotional'] as const;
export type GrantSource = (typeof GRANT_SOURCES)[number];
export const GRANT_STATUSES = ['active', 'depleted', 'expired'] as const;
export type GrantStatus = (typeof GRANT_STATUSES)[number];

/** A grant exactly as the API returns it. */
export interface Grant {
  id: string;
  source: GrantSource;
  credits: number;
  remaining: number;
  status: GrantStatus;
  expires_at: string | null;
  expired_credits: number;
  purchase_id: string | null;
  created_at: string;
}

/** A grant with what only the ledger and the expiry need: its key, version and warning. */
export interface GrantRecord extends Grant {
  orgId: string;
  key: TableKey;
  version: number;
  warned_at: string | null;
}

/** Markers are kept as long as usage's: a refund names its charge within hours, never a year later. */
const MARKER_RETENTION_SECONDS = 400 * 86_400;

/** The warning (`credits.expiring`) is due this long before a grant's expiry. */
export const EXPIRING_NOTICE_MS = 7 * 86_400_000;

export const newGrantId = (): string => `grt_${randomUUID().replaceAll('-', '')}`;

/** A grant's status for what it has left (an expired grant stays expired). */
export const statusOf = (remaining: number, expired: boolean): GrantStatus => (expired ? 'expired' : remaining > 0 ? 'active' : 'depleted');

export function grantOf(item: Record<string, unknown>): GrantRecord {
  return {
    id: String(item.id),
    source: item.source as GrantSource,
    credits: Number(item.credits),
    remaining: Number(item.remaining),
    status: item.status as GrantStatus,
    expires_at: item.expiry == null ? null : String(item.expiry),
    expired_credits: Number(item.expired_credits ?? 0),
    purchase_id: item.purchase_id == null ? null : String(item.purchase_id),
    created_at: String(item.created_at),
    orgId: orgIdOfGrantsPartition(String(item.PK)),
    key: { PK: String(item.PK), SK: String(item.SK) },
    version: Number(item.version ?? 0),
    warned_at: item.warned_at == null ? null : String(item.warned_at),
  };
}

export const grantView = (grant: Grant): Grant => ({
  id: grant.id,
  source: grant.source,
  credits: grant.credits,
  remaining: grant.remaining,
  status: grant.status,
  expires_at: grant.expires_at,
  expired_credits: grant.expired_credits,
  purchase_id: grant.purchase_id,
  created_at: grant.created_at,
});

/** When a grant with `expiry` is next due to the expiry function: its warning, then its expiry (plus `marginMs`). */
export const firstDueAt = (expiry: string, marginMs: number, nowMs: number): string => {
  const warnAt = Date.parse(expiry) - EXPIRING_NOTICE_MS;
  return new Date(warnAt > nowMs ? warnAt : Math.min(nowMs, Date.parse(expiry) + marginMs)).toISOString();
};

/** The put of a new grant (only if absent); with an expiry, its entry in the due index. */
export function grantPut(orgId: string, grant: Grant, dueAt: string | null): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...grantKey(orgId, grant.created_at, grant.id),
        entity: 'credit_grant',
        id: grant.id,
        source: grant.source,
        credits: grant.credits,
        remaining: grant.remaining,
        status: grant.status,
        expiry: grant.expires_at,
        expired_credits: grant.expired_credits,
        purchase_id: grant.purchase_id,
        created_at: grant.created_at,
        version: 0,
        ...(dueAt === null ? {} : grantDueIndexKey(dueAt, grant.id)),
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

/** The ledger of an organization's grants. `cutoff`: events created up to it are in its legacy grant (null: none). */
export interface GrantLedger {
  debt: number;
  version: number;
  cutoff: string | null;
}

/** A new ledger (only if absent): a new organization's, or an organization's first met by the ledger. */
export const ledgerPut = (orgId: string, ledger: GrantLedger): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: { ...grantLedgerKey(orgId), entity: 'grant_ledger', debt: ledger.debt, version: ledger.version, cutoff: ledger.cutoff },
    ConditionExpression: 'attribute_not_exists(PK)',
  },
});

/** The ledger's new debt, only if its version is still the one read. */
export const ledgerUpdate = (orgId: string, read: GrantLedger, debt: number): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: grantLedgerKey(orgId),
    UpdateExpression: 'SET debt = :debt, version = :next',
    ConditionExpression: 'version = :version',
    ExpressionAttributeValues: { ':debt': debt, ':version': read.version, ':next': read.version + 1 },
  },
});

/** What a grant is changed to, only if its version is still the one read. */
export interface GrantChange {
  remaining: number;
  status: GrantStatus;
  /** Added to `expired_credits`. */
  expired?: number;
  /** Set: the grant is due to the expiry function at this time; null: out of the due index; undefined: unchanged. */
  dueAt?: string | null;
  /** Set on the warning's write (its stream record is what the owners are told). */
  warnedAt?: string;
}

export function grantUpdate(grant: GrantRecord, change: GrantChange): TransactItem {
  const sets = ['remaining = :remaining', '#status = :status', 'version = :next'];
  const values: Record<string, unknown> = {
    ':remaining': change.remaining,
    ':status': change.status,
    ':version': grant.version,
    ':next': grant.version + 1,
  };
  const removes: string[] = [];
  if (change.expired) {
    sets.push('expired_credits = expired_credits + :expired');
    values[':expired'] = change.expired;
  }
  if (change.warnedAt !== undefined) {
    sets.push('warned_at = :warned');
    values[':warned'] = change.warnedAt;
  }
  if (change.dueAt === null) removes.push('GSI1PK', 'GSI1SK');
  else if (change.dueAt !== undefined) {
    const due = grantDueIndexKey(change.dueAt, grant.id);
    sets.push('GSI1PK = :duePk', 'GSI1SK = :dueSk');
    values[':duePk'] = due.GSI1PK;
    values[':dueSk'] = due.GSI1SK;
  }
  return {
    Update: {
      TableName: tableName(),
      Key: grant.key,
      UpdateExpression: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
      ConditionExpression: 'version = :version',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: values,
    },
  };
}

/** What a charge (or deduction) drew: credits per grant (by id and key), and what no grant had (debt). */
export interface Draw {
  grants: { id: string; sk: string; credits: number }[];
  debt: number;
}

/** The marker that `eventId` was applied (only if absent), with what a draw took. */
export const markerPut = (orgId: string, eventId: string, draw: Draw | undefined, nowMs: number): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: {
      ...ledgerMarkerKey(orgId, eventId),
      entity: 'grant_ledger_marker',
      ...(draw ? { draws: draw.grants, debt: draw.debt } : {}),
      expires_at: Math.floor(nowMs / 1000) + MARKER_RETENTION_SECONDS,
    },
    ConditionExpression: 'attribute_not_exists(PK)',
  },
});

/** An organization's grants ledger as read at once: the ledger (null before the first), every grant, by id. */
export interface GrantState {
  ledger: GrantLedger | null;
  grants: GrantRecord[];
}

/** The ledger of an organization's grants, consistent; null before its first. */
export async function readLedger(orgId: string): Promise<GrantLedger | null> {
  const { Item: item } = await db().send(new GetCommand({ TableName: tableName(), Key: grantLedgerKey(orgId), ConsistentRead: true }));
  return item
    ? { debt: Number(item.debt ?? 0), version: Number(item.version ?? 0), cutoff: item.cutoff == null ? null : String(item.cutoff) }
    : null;
}

/** The ledger and every grant of an organization, consistent (a GetItem and a Query of its grants partition, together). */
export async function readGrantState(orgId: string): Promise<GrantState> {
  const prefix = grantsPrefix(orgId);
  const [ledger, grants] = await Promise.all([
    readLedger(orgId),
    queryAll({
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': prefix.PK, ':prefix': prefix.skPrefix },
      ConsistentRead: true,
    }),
  ]);
  return { ledger, grants: grants.map(grantOf) };
}

/** The markers of `eventIds` that exist, by event id (with what each drew). */
export async function readMarkers(orgId: string, eventIds: readonly string[]): Promise<Map<string, Draw | undefined>> {
  const unique = [...new Set(eventIds)];
  const found = new Map<string, Draw | undefined>();
  for (let i = 0; i < unique.length; i += 100) {
    const items = await batchGetAll(unique.slice(i, i + 100).map((id) => ledgerMarkerKey(orgId, id)));
    for (const item of items) {
      const id = String(item.SK).slice(String(ledgerMarkerKey(orgId, '').SK).length);
      found.set(id, item.draws ? { grants: item.draws as Draw['grants'], debt: Number(item.debt ?? 0) } : undefined);
    }
  }
  return found;
}

/** One grant, consistent (the expiry reads it before deciding). */
export async function getGrant(key: TableKey): Promise<GrantRecord | null> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  return result.Item ? grantOf(result.Item) : null;
}

/** The keys of grants due to the expiry function at `nowIso`, soonest first (eventually consistent: the index). */
export async function listDueGrants(nowIso: string, limit: number): Promise<TableKey[]> {
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: SWEEP_INDEX,
      KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK <= :now',
      // `~` sorts after every id character: a grant due at exactly `nowIso` is included.
      ExpressionAttributeValues: { ':pk': GRANTS_DUE_PK, ':now': `${nowIso}#~` },
      ProjectionExpression: 'PK, SK',
      Limit: limit,
    }),
  );
  return (result.Items ?? []).map((item) => ({ PK: String(item.PK), SK: String(item.SK) }));
}

export interface GrantsPage {
  grants: Grant[];
  hasMore: boolean;
  /** The position to start the next page after, when hasMore. */
  next: string | undefined;
}

/**
 * One page of an organization's grants, newest first, optionally of one status, after `after` (a
 * previous page's `next`). A status is a filter over the partition: Queries follow DynamoDB's
 * pages until the page is full or the partition read, one grant more than asked to tell `hasMore`.
 */
export async function listGrantsPage(orgId: string, status: GrantStatus | undefined, limit: number, after?: string): Promise<GrantsPage> {
  const prefix = grantsPrefix(orgId);
  const found: GrantRecord[] = [];
  let startKey: Record<string, unknown> | undefined = after ? grantAt(orgId, after) : undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': prefix.PK, ':prefix': prefix.skPrefix, ...(status ? { ':status': status } : {}) },
        ...(status ? { FilterExpression: '#status = :status', ExpressionAttributeNames: { '#status': 'status' } } : {}),
        ScanIndexForward: false,
        Limit: limit + 1 - found.length,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    found.push(...(page.Items ?? []).map(grantOf));
    startKey = page.LastEvaluatedKey;
  } while (startKey && found.length <= limit);
  const more = found.length > limit;
  const grants = found.slice(0, limit);
  const last = grants.at(-1);
  return { grants: grants.map(grantView), hasMore: more, next: more && last ? grantPosition(last.key.SK) : undefined };
}
