import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { defined } from '../defined.ts';
import { AlreadyExistsError, InsufficientBalanceError, NoSuchOrganizationError } from '../errors.ts';
import { NETWORKS, type Network, type Role } from '../model.ts';
import { type AuditSource, auditEventPut, changesOf, creditsEvent } from './audit-events.ts';
import { type BillingEvent, billingEventPut, newBillingEvent } from './billing-events.ts';
import {
  batchGetAll,
  cancellationCodes,
  cancellationReasons,
  conditionFailed,
  db,
  type TransactItem,
  tableName,
  transact,
} from './client.ts';
import { limitsUnchanged } from './credits.ts';
import { type Grant, grantPut, ledgerPut, newGrantId } from './grants.ts';
import { ORG_DIRECTORY_PK, orgDirectoryKey, orgIdOfDirectoryKey, orgKey } from './keys.ts';
import { fenceLanes, hasLanes, laneMovesOf, readLanes } from './lanes.ts';
import { membershipItem } from './memberships.ts';

export interface Organization {
  id: string;
  name: string;
  networks: Network[];
  /** Credit balance; never negative. */
  credits: number;
  /** Monthly (UTC calendar month) spending limit in credits, or null for none. */
  spending_limit: number | null;
  /** Daily (UTC day) spending limit in credits, or null for none. */
  daily_limit: number | null;
  /** MCP calls quoted above this many credits run only after consent (lib/mcp/consent.ts); null: never ask. */
  confirm_above: number | null;
  created_at: string;
  /**
   * Lanes were filled from its balance (a hot organization, lib/db/lanes.ts): `credits` is then the
   * whole balance when read by getOrganization, and only what no lane holds when read alone.
   */
  lanes?: true;
}

/** An organization item as stored (also as a cancelled transaction returns it). */
export const organizationOf = (item: Record<string, unknown>): Organization => ({
  id: item.id as string,
  name: item.name as string,
  // A list unmarshalls to an array, a string set (written by hand or by an older tool) to a Set.
  networks: Array.from((item.networks as Iterable<Network> | undefined) ?? []),
  credits: Number(item.credits),
  spending_limit: item.spending_limit == null ? null : Number(item.spending_limit),
  daily_limit: item.daily_limit == null ? null : Number(item.daily_limit),
  confirm_above: item.confirm_above == null ? null : Number(item.confirm_above),
  created_at: item.created_at as string,
  // Only a hot organization has it: a cold one reads (and prints) as it always has.
  ...(hasLanes(item) ? { lanes: true as const } : {}),
});

/** What `createOrganization` takes. */
export interface NewOrganization {
  id: string;
  name?: string;
  credits?: number;
  networks?: Network[];
  spendingLimit?: number | null;
  dailyLimit?: number | null;
  /** Its first members (each user once), with their limits (none unless given). */
  members?: readonly { userId: string; role: Role; spendingLimit?: number | null; dailyLimit?: number | null }[];
  now?: Date;
  /** Who creates it (the admin CLI's operator): its `organization.created` audit event is written with it. */
  audit?: AuditSource;
}

/**
 * The items of a new organization, each a conditional put: the organization (its owner count
 * starting at its owners), its directory entry (what `org list` reads), its opening balance as a
 * `credits.granted` event and operator grant, its grants' ledger, and its first members. `createOrganization` writes them.
 */
export function newOrganizationItems(input: NewOrganization): { org: Organization; items: TransactItem[] } {
  const now = input.now ?? new Date();
  const members = input.members ?? [];
  if (new Set(members.map((member) => member.userId)).size !== members.length)
    throw new Error('createOrganization: a user listed twice in members');
  const org: Organization = {
    id: input.id,
    name: input.name ?? input.id,
    networks: input.networks ?? [...NETWORKS],
    credits: input.credits ?? 0,
    spending_limit: input.spendingLimit ?? null,
    daily_limit: input.dailyLimit ?? null,
    confirm_above: null,
    created_at: now.toISOString(),
  };
  const items: TransactItem[] = [
    {
      Put: {
        TableName: tableName(),
        // owner_count: kept by every membership write (lib/db/memberships.ts), for the last-owner rule.
        Item: { ...orgKey(org.id), type: 'organization', ...org, owner_count: members.filter((member) => member.role === 'owner').length },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    {
      Put: {
        TableName: tableName(),
        Item: { ...orgDirectoryKey(org.id), entity: 'organization_directory', id: org.id, name: org.name, created_at: org.created_at },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
  ];
  // Its grants' ledger from the start: the ledger never takes it for one from before grants.
  items.push(ledgerPut(org.id, { debt: 0, version: 0, cutoff: null }));
  if (org.credits > 0) {
    // The opening balance is an operator's grant, without expiry (lib/billing/grants.ts builds the
    // others; an organization's first items are this module's).
    const grant: Grant = {
      id: newGrantId(),
      source: 'operator',
      credits: org.credits,
      remaining: org.credits,
      status: 'active',
      expires_at: null,
      expired_credits: 0,
      purchase_id: null,
      created_at: org.created_at,
    };
    const event = newBillingEvent({
      type: 'credits.granted',
      title: 'Credits granted',
      description: `Opening balance of ${org.credits} credits`,
      amount: org.credits,
      now,
      metadata: { reason: 'opening balance', grant_id: grant.id },
    });
    items.push(billingEventPut(org.id, event), grantPut(org.id, grant, null));
  }
  for (const { userId, role, spendingLimit = null, dailyLimit = null } of members) {
    const membership = {
      organization_id: org.id,
      user_id: userId,
      role,
      spending_limit: spendingLimit,
      daily_limit: dailyLimit,
      created_at: org.created_at,
    };
    items.push({ Put: { TableName: tableName(), Item: membershipItem(membership), ConditionExpression: 'attribute_not_exists(PK)' } });
  }
  if (input.audit) {
    const { name, networks, spending_limit, daily_limit } = org;
    items.push(
      auditEventPut(
        org.id,
        input.audit,
        {
          type: 'organization.created',
          target: { type: 'organization', id: org.id },
          details: { name, networks, spending_limit, daily_limit },
        },
        now,
      ),
    );
  }
  return { org, items };
}

/**
 * Creates the organization with its directory entry, opening balance and first members in one
 * transaction: no moment sees the organization without them.
 */
export async function createOrganization(input: NewOrganization): Promise<Organization> {
  const { org, items } = newOrganizationItems(input);
  try {
    await db().send(new TransactWriteCommand({ TransactItems: items }));
  } catch (error) {
    if (cancellationCodes(error)?.[0] === 'ConditionalCheckFailed') {
      throw new AlreadyExistsError(`organization ${org.id} already exists`);
    }
    throw error;
  }
  return org;
}

/** The organization's item as stored (a hot one's `lanes` and `lane_moves` included), consistently. */
export const getOrganizationItem = async (id: string): Promise<Record<string, unknown> | undefined> =>
  (await db().send(new GetCommand({ TableName: tableName(), Key: orgKey(id), ConsistentRead: true }))).Item;

/** A balance read gives up comparing after this many reads of an organization that kept moving credits (then: the last read). */
const BALANCE_READS = 6;

/**
 * The organization with its balance. A cold organization: one GetItem. A hot one (lanes): its
 * balance is the item's credits and what its lanes hold, the lanes read between two reads of the
 * item that find no credit moved meanwhile (a fill, a return, a refund, a grant), so that the sum
 * is the sum of the billing events at one instant: charges on lanes do not touch the item, and
 * each lowers a lane by its event's amount. `withLanes: false`: the item alone (the run path,
 * which needs its limits and whether it is hot, not its balance).
 */
export async function getOrganization(id: string, { withLanes = true } = {}): Promise<Organization | null> {
  const read = () => getOrganizationItem(id);
  let item = await read();
  for (let attempt = 1; item && withLanes && hasLanes(item); attempt += 1) {
    const lanes = await readLanes(id);
    const again = await read();
    if (!again) return null;
    if (laneMovesOf(again) === laneMovesOf(item) || attempt >= BALANCE_READS) {
      const org = organizationOf(again);
      return { ...org, credits: org.credits + lanes.reduce((sum, lane) => sum + lane.credits, 0) };
    }
    item = again;
  }
  return item ? organizationOf(item) : null;
}

/**
 * Applies an event's signed amount to the balance and stores the event, in one transaction
 * (grants, deductions; tests' sample history). Charging has its own conditional path. A
 * negative amount requires the balance to cover it: the condition, not a prior read, keeps the
 * balance from going below zero whatever runs alongside.
 */
export async function applyBillingEvent(orgId: string, event: BillingEvent, also: TransactItem[] = []): Promise<Organization> {
  const debit = event.amount < 0;
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: orgKey(orgId),
              UpdateExpression: 'ADD credits :amount',
              ConditionExpression: debit ? 'attribute_exists(PK) AND credits >= :debit' : 'attribute_exists(PK)',
              ExpressionAttributeValues: { ':amount': event.amount, ...(debit ? { ':debit': -event.amount } : {}) },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
          billingEventPut(orgId, event),
          ...also,
        ],
      }),
    );
  } catch (error) {
    const [org] = cancellationReasons(error) ?? [];
    if (org?.Code === 'ConditionalCheckFailed') {
      if (!org.Item) throw new NoSuchOrganizationError(`organization ${orgId} does not exist`);
      const balance = Number(unmarshall(org.Item as Record<string, AttributeValue>).credits ?? 0);
      throw new InsufficientBalanceError(
        `organization ${orgId} has ${balance} credits: deducting ${-event.amount} would take the balance below zero`,
        balance,
      );
    }
    throw error;
  }
  return defined(await getOrganization(orgId), `organization ${orgId} after its update`);
}

/**
 * An expiry's part of the balance: `credits` off, only while the balance holds them (no expiry
 * takes it below zero), with what expired kept on the item (`last_expiry`) so that the owners'
 * `credits.expired` notification reads it, with the balance after, from the item's stream record.
 */
export const expiryOrgItem = (orgId: string, credits: number, notice: Record<string, unknown>): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: orgKey(orgId),
    UpdateExpression: 'SET credits = credits - :credits, last_expiry = :notice',
    ConditionExpression: 'attribute_exists(PK) AND credits >= :credits',
    ExpressionAttributeValues: { ':credits': credits, ':notice': notice },
  },
});

/**
 * An operator's adjustment: takes credits off the balance with a `credits.deducted` event whose
 * description is the operator's reason. Refused (InsufficientBalanceError) if the balance would
 * go below zero. Not counted as monthly spend: spending limits cap what members run. Its
 * `credits.deducted` audit event is written with it.
 */
export async function deductCredits(
  orgId: string,
  amount: number,
  reason: string,
  source: AuditSource,
  now = new Date(),
): Promise<{ organization: Organization; event: BillingEvent }> {
  const event = newBillingEvent({
    type: 'credits.deducted',
    title: 'Credits deducted',
    description: reason,
    amount: -amount,
    now,
    metadata: { reason },
  });
  return { organization: await applyBillingEvent(orgId, event, [creditsEvent(orgId, event, reason, source, now)]), event };
}

/**
 * One page of organizations in id order, after `after` (exclusive): a Query on the directory
 * partition, then one BatchGet of the organizations themselves (balances, limits), consistent.
 * `next` is the id to pass as `after` for the next page, or null after the last one.
 */
export async function listOrganizations(options: {
  limit: number;
  after?: string;
}): Promise<{ organizations: Organization[]; next: string | null }> {
  const page = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: options.after ? 'PK = :pk AND SK > :after' : 'PK = :pk',
      ExpressionAttributeValues: {
        ':pk': ORG_DIRECTORY_PK,
        ...(options.after ? { ':after': orgDirectoryKey(options.after).SK } : {}),
      },
      ProjectionExpression: 'SK',
      Limit: options.limit,
    }),
  );
  const ids = (page.Items ?? []).map((item) => orgIdOfDirectoryKey(String(item.SK)));
  const found = new Map((await getOrganizations(ids)).map((org) => [org.id, org]));
  return {
    organizations: ids.flatMap((id) => found.get(id) ?? []),
    next: page.LastEvaluatedKey ? (ids.at(-1) ?? null) : null,
  };
}

/** At most 100 organizations by id (one BatchGet, plus retries of what DynamoDB left unprocessed). */
async function getOrganizations(ids: string[]): Promise<Organization[]> {
  const orgs = (await batchGetAll(ids.map(orgKey))).map(organizationOf);
  // A hot organization's balance includes its lanes: read as getOrganization reads it.
  return Promise.all(orgs.map(async (org) => (org.lanes ? ((await getOrganization(org.id)) ?? org) : org)));
}

/** What an organization's settings change takes: each field given is set, the others kept. */
export interface OrganizationChange {
  name?: string;
  spendingLimit?: number | null;
  dailyLimit?: number | null;
  networks?: Network[];
  confirmAbove?: number | null;
}

/** The settings an `organization.updated` event records, as `GET /organizations/{id}` (and `org show`) shows them. */
const AUDITED_SETTINGS = ['name', 'networks', 'spending_limit', 'daily_limit', 'confirm_above'] as const;

/** The organization changed (or vanished) between its read and the write: read again. */
class SettingsChanged extends Error {}

/** Up to this many reads and writes while the settings keep changing under a write. */
const SETTINGS_WRITE_ATTEMPTS = 4;

/**
 * The organization's update from `read` to `after`: the fields that change, on the condition that
 * each still holds the value read (so the event's `before` is exact). Networks are compared as a
 * set (size and members), which holds for a list and for a string set alike.
 */
function settingsUpdate(read: Organization, after: Organization, changed: readonly string[]): TransactItem {
  const sets: string[] = [];
  const conditions = ['attribute_exists(PK)'];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  if (changed.includes('name')) {
    names['#name'] = 'name';
    sets.push('#name = :newName');
    conditions.push('#name = :readName');
    Object.assign(values, { ':newName': after.name, ':readName': read.name });
  }
  if (changed.includes('spending_limit') || changed.includes('daily_limit')) {
    const limits = limitsUnchanged(read);
    conditions.push(limits.condition);
    Object.assign(values, limits.values);
    if (changed.includes('spending_limit')) {
      sets.push('spending_limit = :newLimit');
      values[':newLimit'] = after.spending_limit;
    }
    if (changed.includes('daily_limit')) {
      sets.push('daily_limit = :newDailyLimit');
      values[':newDailyLimit'] = after.daily_limit;
    }
  }
  if (changed.includes('confirm_above')) {
    sets.push('confirm_above = :newConfirmAbove');
    values[':newConfirmAbove'] = after.confirm_above;
    if (read.confirm_above === null) {
      values[':nullType'] = 'NULL';
      conditions.push('(attribute_not_exists(confirm_above) OR attribute_type(confirm_above, :nullType))');
    } else {
      values[':readConfirmAbove'] = read.confirm_above;
      conditions.push('confirm_above = :readConfirmAbove');
    }
  }
  if (changed.includes('networks')) {
    sets.push('networks = :newNetworks');
    values[':newNetworks'] = after.networks;
    values[':readCount'] = read.networks.length;
    conditions.push(
      'size(networks) = :readCount',
      ...read.networks.map((network, i) => {
        values[`:readNetwork${i}`] = network;
        return `contains(networks, :readNetwork${i})`;
      }),
    );
  }
  return {
    Update: {
      TableName: tableName(),
      Key: orgKey(read.id),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: conditions.join(' AND '),
      ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
      ExpressionAttributeValues: values,
    },
  };
}

/**
 * Changes an organization's settings (PATCH, and the admin CLI): its name (and its directory
 * entry, what `org list` shows), monthly and daily limits (null: none) and enabled networks, in
 * one transaction with its `organization.updated` event, whose `changes` are exactly the fields
 * whose value changes; runs, the listing and the balance see them on their next read, and a charge
 * in flight that read the old limits re-reads (lib/db/credits.ts). A change of nothing writes
 * nothing. `read` is the organization as the caller read it (consistently) beside its other reads;
 * read again when a concurrent write changed it. Returns the organization as changed, or null when
 * there is none.
 */
export async function changeOrganizationSettings(
  orgId: string,
  change: OrganizationChange,
  source: AuditSource,
  now: Date,
  read?: Organization | null,
): Promise<Organization | null> {
  let org = read === undefined ? await getOrganization(orgId) : read;
  for (let attempt = 1; org; attempt += 1) {
    const after: Organization = {
      ...org,
      ...(change.name === undefined ? {} : { name: change.name }),
      ...(change.spendingLimit === undefined ? {} : { spending_limit: change.spendingLimit }),
      ...(change.dailyLimit === undefined ? {} : { daily_limit: change.dailyLimit }),
      ...(change.networks === undefined ? {} : { networks: change.networks }),
      ...(change.confirmAbove === undefined ? {} : { confirm_above: change.confirmAbove }),
    };
    const changes = changesOf(org, after, AUDITED_SETTINGS);
    if (!changes) return org;
    const renamed: TransactItem[] =
      'name' in changes
        ? [
            {
              Update: {
                TableName: tableName(),
                Key: orgDirectoryKey(orgId),
                UpdateExpression: 'SET #name = :name',
                ConditionExpression: 'attribute_exists(PK)',
                ExpressionAttributeNames: { '#name': 'name' },
                ExpressionAttributeValues: { ':name': after.name },
              },
            },
          ]
        : [];
    const event = auditEventPut(orgId, source, { type: 'organization.updated', target: { type: 'organization', id: orgId }, changes }, now);
    // A hot organization's lanes were filled under the old limits and networks: fenced once this is
    // written. A cold one has none, as long as it is still cold when the change lands.
    const fence = Object.keys(changes).some((field) => field !== 'name');
    const update = settingsUpdate(org, after, Object.keys(changes));
    if (fence && !org.lanes && update.Update) update.Update.ConditionExpression += ' AND attribute_not_exists(lanes)';
    try {
      await transact([update, ...renamed, event], (reasons) => (conditionFailed(reasons, 0) ? new SettingsChanged() : null));
      if (fence && org.lanes) await fenceLanes(orgId);
      return after;
    } catch (error) {
      if (!(error instanceof SettingsChanged) || attempt >= SETTINGS_WRITE_ATTEMPTS) throw error;
    }
    org = await getOrganization(orgId);
  }
  return null;
}

/** Replaces the organization's enabled networks (the admin CLI). */
export const setNetworks = (orgId: string, networks: Network[], source: AuditSource): Promise<Organization> =>
  existing(orgId, changeOrganizationSettings(orgId, { networks: [...new Set(networks)] }, source, new Date()));

/** Sets the organization's monthly spending limit (null: none; the admin CLI); runs see it on their next read. */
export const setOrganizationSpendingLimit = (orgId: string, limit: number | null, source: AuditSource): Promise<Organization> =>
  existing(orgId, changeOrganizationSettings(orgId, { spendingLimit: limit }, source, new Date()));

/** Sets the organization's daily spending limit (null: none; the admin CLI); runs see it on their next read. */
export const setOrganizationDailyLimit = (orgId: string, limit: number | null, source: AuditSource): Promise<Organization> =>
  existing(orgId, changeOrganizationSettings(orgId, { dailyLimit: limit }, source, new Date()));

/** Renames the organization and its directory entry (what `org list` shows), in one transaction with its event. */
export const renameOrganization = (orgId: string, name: string, source: AuditSource): Promise<Organization> =>
  existing(orgId, changeOrganizationSettings(orgId, { name }, source, new Date()));

/** The operator tools' refusal for an organization that does not exist. */
async function existing(orgId: string, updated: Promise<Organization | null>): Promise<Organization> {
  const org = await updated;
  if (!org) throw new NoSuchOrganizationError(`organization ${orgId} does not exist`);
  return org;
}
