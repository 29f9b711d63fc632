import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { NoSuchOrganizationError } from '../errors.ts';
import type { Role } from '../model.ts';
import { cancellationCodes, db, tableName } from './client.ts';
import { membershipIndexKey, membershipKey, orgKey, userMembershipsPrefix } from './keys.ts';

export interface Membership {
  organization_id: string;
  user_id: string;
  role: Role;
  /** Monthly (UTC calendar month) spending limit in credits, or null for none. */
  spending_limit: number | null;
  created_at: string;
}

const toMembership = (item: Record<string, unknown>): Membership => ({
  organization_id: item.organization_id as string,
  user_id: item.user_id as string,
  role: item.role as Role,
  spending_limit: item.spending_limit == null ? null : Number(item.spending_limit),
  created_at: item.created_at as string,
});

/**
 * Adds a member or changes an existing member's role and limit. The organization must exist:
 * the put is a transaction with a condition check on the organization item.
 */
export async function putMembership(input: {
  orgId: string;
  userId: string;
  role: Role;
  spendingLimit?: number | null;
}): Promise<Membership> {
  const membership: Membership = {
    organization_id: input.orgId,
    user_id: input.userId,
    role: input.role,
    spending_limit: input.spendingLimit ?? null,
    created_at: new Date().toISOString(),
  };
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          { ConditionCheck: { TableName: tableName(), Key: orgKey(input.orgId), ConditionExpression: 'attribute_exists(PK)' } },
          {
            Put: {
              TableName: tableName(),
              Item: {
                ...membershipKey(input.orgId, input.userId),
                ...membershipIndexKey(input.orgId, input.userId),
                entity: 'membership',
                ...membership,
              },
            },
          },
        ],
      }),
    );
  } catch (error) {
    if (cancellationCodes(error)?.[0] === 'ConditionalCheckFailed') {
      throw new NoSuchOrganizationError(`organization ${input.orgId} does not exist`);
    }
    throw error;
  }
  return membership;
}

/** The caller's membership of one organization; null when not a member or no such organization. */
export async function getMembership(orgId: string, userId: string): Promise<Membership | null> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: membershipKey(orgId, userId), ConsistentRead: true }));
  return result.Item ? toMembership(result.Item) : null;
}

/** Every organization the user belongs to, with the role in each (one Query on the user's partition). */
export async function listMembershipsOfUser(userId: string): Promise<Membership[]> {
  const { PK, skPrefix } = userMembershipsPrefix(userId);
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': PK, ':prefix': skPrefix },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items.map(toMembership);
}

export async function setMemberSpendingLimit(orgId: string, userId: string, limit: number | null): Promise<Membership | null> {
  try {
    const result = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: membershipKey(orgId, userId),
        UpdateExpression: 'SET spending_limit = :limit',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':limit': limit },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toMembership(result.Attributes!);
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return null;
    throw error;
  }
}
