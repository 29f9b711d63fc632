import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { AlreadyExistsError, NoSuchOrganizationError } from '../errors.ts';
import { NETWORKS, type Network } from '../model.ts';
import { type BillingEvent, billingEventPut, newBillingEvent } from './billing-events.ts';
import { cancellationCodes, db, type TransactItem, tableName } from './client.ts';
import { orgKey } from './keys.ts';

export interface Organization {
  id: string;
  name: string;
  networks: Network[];
  /** Credit balance; never negative. */
  credits: number;
  /** Monthly (UTC calendar month) spending limit in credits, or null for none. */
  spending_limit: number | null;
  created_at: string;
}

const toOrganization = (item: Record<string, unknown>): Organization => ({
  id: item.id as string,
  name: item.name as string,
  networks: item.networks as Network[],
  credits: Number(item.credits),
  spending_limit: item.spending_limit == null ? null : Number(item.spending_limit),
  created_at: item.created_at as string,
});

/** Creates the organization, with its opening balance recorded as a `credits.granted` event. */
export async function createOrganization(input: {
  id: string;
  name?: string;
  credits?: number;
  networks?: Network[];
  spendingLimit?: number | null;
  now?: Date;
}): Promise<Organization> {
  const now = input.now ?? new Date();
  const org: Organization = {
    id: input.id,
    name: input.name ?? input.id,
    networks: input.networks ?? [...NETWORKS],
    credits: input.credits ?? 0,
    spending_limit: input.spendingLimit ?? null,
    created_at: now.toISOString(),
  };
  const items: TransactItem[] = [
    {
      Put: {
        TableName: tableName(),
        Item: { ...orgKey(org.id), type: 'organization', ...org },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
  ];
  if (org.credits > 0) {
    const event = newBillingEvent({
      type: 'credits.granted',
      title: 'Credits granted',
      description: `Opening balance of ${org.credits} credits`,
      amount: org.credits,
      now,
    });
    items.push(billingEventPut(org.id, event));
  }
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
  return result.Item ? toOrganization(result.Item) : null;
}

/**
 * Applies an event's signed amount to the balance and stores the event, in one transaction
 * (grants; the seed's sample history). Charging has its own conditional path.
 */
export async function applyBillingEvent(orgId: string, event: BillingEvent): Promise<Organization> {
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: orgKey(orgId),
              UpdateExpression: 'ADD credits :amount',
              ConditionExpression: 'attribute_exists(PK)',
              ExpressionAttributeValues: { ':amount': event.amount },
            },
          },
          billingEventPut(orgId, event),
        ],
      }),
    );
  } catch (error) {
    if (cancellationCodes(error)?.[0] === 'ConditionalCheckFailed') {
      throw new NoSuchOrganizationError(`organization ${orgId} does not exist`);
    }
    throw error;
  }
  return (await getOrganization(orgId))!;
}

/** Adds credits and records a `credits.granted` event. */
export async function grantCredits(
  orgId: string,
  amount: number,
  now = new Date(),
): Promise<{ organization: Organization; event: BillingEvent }> {
  const event = newBillingEvent({
    type: 'credits.granted',
    title: 'Credits granted',
    description: `${amount} credits added to the balance`,
    amount,
    now,
  });
  return { organization: await applyBillingEvent(orgId, event), event };
}

/** Replaces the organization's enabled networks. */
export async function setNetworks(orgId: string, networks: Network[]): Promise<Organization> {
  try {
    const result = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: orgKey(orgId),
        UpdateExpression: 'SET networks = :networks',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':networks': networks },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toOrganization(result.Attributes!);
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException')
      throw new NoSuchOrganizationError(`organization ${orgId} does not exist`);
    throw error;
  }
}
