import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { defined } from '../defined.ts';
import { AlreadyExistsError, InsufficientBalanceError, NoSuchOrganizationError } from '../errors.ts';
import { NETWORKS, type Network, type Role } from '../model.ts';
import { type BillingEvent, billingEventPut, newBillingEvent } from './billing-events.ts';
import { batchGetAll, cancellationCodes, cancellationReasons, db, type TransactItem, tableName } from './client.ts';
import { type Grant, grantPut, ledgerPut, newGrantId } from './grants.ts';
import { ORG_DIRECTORY_PK, orgDirectoryKey, orgIdOfDirectoryKey, orgKey } from './keys.ts';
import { membershipItem } from './memberships.ts';
import type { TableKey } from './table.ts';

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
  created_at: string;
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
  created_at: item.created_at as string,
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

export async function getOrganization(id: string): Promise<Organization | null> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: orgKey(id), ConsistentRead: true }));
  return result.Item ? organizationOf(result.Item) : null;
}

/**
 * Applies an event's signed amount to the balance and stores the event, in one transaction
 * (grants, deductions; tests' sample history). Charging has its own conditional path. A
 * negative amount requires the balance to cover it: the condition, not a prior read, keeps the
 * balance from going below zero whatever runs alongside.
 */
export async function applyBillingEvent(orgId: string, event: BillingEvent): Promise<Organization> {
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
 * go below zero. Not counted as monthly spend: spending limits cap what members run.
 */
export async function deductCredits(
  orgId: string,
  amount: number,
  reason: string,
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
  return { organization: await applyBillingEvent(orgId, event), event };
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
  return (await batchGetAll(ids.map(orgKey))).map(organizationOf);
}

/** Replaces the organization's enabled networks (the admin CLI). */
export const setNetworks = (orgId: string, networks: Network[]): Promise<Organization> =>
  existing(orgId, updateOrganizationSettings(orgId, { networks }));

/** Sets the organization's monthly spending limit (null: none; the admin CLI); runs see it on their next read. */
export const setOrganizationSpendingLimit = (orgId: string, limit: number | null): Promise<Organization> =>
  existing(orgId, updateOrganizationSettings(orgId, { spendingLimit: limit }));

/** Sets the organization's daily spending limit (null: none; the admin CLI); runs see it on their next read. */
export const setOrganizationDailyLimit = (orgId: string, limit: number | null): Promise<Organization> =>
  existing(orgId, updateOrganizationSettings(orgId, { dailyLimit: limit }));

/** The operator tools' refusal for an organization that does not exist. */
async function existing(orgId: string, updated: Promise<Organization | null>): Promise<Organization> {
  const org = await updated;
  if (!org) throw new NoSuchOrganizationError(`organization ${orgId} does not exist`);
  return org;
}

/** Renames the organization and its directory entry (what `org list` shows) in one transaction. */
export async function renameOrganization(orgId: string, name: string): Promise<Organization> {
  const rename = (key: TableKey): TransactItem => ({
    Update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'SET #name = :name',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeNames: { '#name': 'name' },
      ExpressionAttributeValues: { ':name': name },
    },
  });
  try {
    await db().send(new TransactWriteCommand({ TransactItems: [rename(orgKey(orgId)), rename(orgDirectoryKey(orgId))] }));
  } catch (error) {
    if (cancellationCodes(error)?.includes('ConditionalCheckFailed'))
      throw new NoSuchOrganizationError(`organization ${orgId} does not exist`);
    throw error;
  }
  return defined(await getOrganization(orgId), `organization ${orgId} after its rename`);
}

/**
 * Changes an organization's settings (PATCH): its monthly and daily limits (null: none) and/or
 * its enabled networks, in one conditional write; runs, the listing and the balance see them on
 * their next read, and a charge in flight that read the old limits re-reads (lib/db/credits.ts).
 */
export async function updateOrganizationSettings(
  orgId: string,
  changes: { spendingLimit?: number | null; dailyLimit?: number | null; networks?: Network[] },
): Promise<Organization | null> {
  const sets: string[] = [];
  const values: Record<string, unknown> = {};
  if (changes.spendingLimit !== undefined) {
    sets.push('spending_limit = :limit');
    values[':limit'] = changes.spendingLimit;
  }
  if (changes.dailyLimit !== undefined) {
    sets.push('daily_limit = :dailyLimit');
    values[':dailyLimit'] = changes.dailyLimit;
  }
  if (changes.networks !== undefined) {
    sets.push('networks = :networks');
    values[':networks'] = changes.networks;
  }
  if (sets.length === 0) return getOrganization(orgId);
  try {
    const result = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: orgKey(orgId),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return organizationOf(defined(result.Attributes, 'the updated organization'));
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return null;
    throw error;
  }
}
