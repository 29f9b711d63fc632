import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { defined } from '../defined.ts';
import { AlreadyMemberError, NoSuchMemberError, NoSuchOrganizationError } from '../errors.ts';
import type { Role } from '../model.ts';
import { cancellationReasons, db, queryAll, tableName } from './client.ts';
import { membershipIndexKey, membershipKey, orgKey, orgMembersIndexQuery, userMembershipsPrefix } from './keys.ts';

export interface Membership {
  organization_id: string;
  user_id: string;
  role: Role;
  /** Monthly (UTC calendar month) spending limit in credits, or null for none. */
  spending_limit: number | null;
  created_at: string;
}

/** A membership item as stored (also as a cancelled transaction returns it). */
export const membershipOf = (item: Record<string, unknown>): Membership => ({
  organization_id: item.organization_id as string,
  user_id: item.user_id as string,
  role: item.role as Role,
  spending_limit: item.spending_limit == null ? null : Number(item.spending_limit),
  created_at: item.created_at as string,
});

/**
 * Adds a member. Refuses an existing membership (AlreadyMemberError, nothing changed): changing
 * a member's role or limit has its own writes, so that adding can never reset either. One
 * transaction: the organization must exist, the membership must not (conditions, not reads).
 */
export async function addMembership(input: {
  orgId: string;
  userId: string;
  role: Role;
  spendingLimit?: number | null;
  now?: Date;
}): Promise<Membership> {
  const membership: Membership = {
    organization_id: input.orgId,
    user_id: input.userId,
    role: input.role,
    spending_limit: input.spendingLimit ?? null,
    created_at: (input.now ?? new Date()).toISOString(),
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
              ConditionExpression: 'attribute_not_exists(PK)',
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
        ],
      }),
    );
  } catch (error) {
    const [org, member] = cancellationReasons(error) ?? [];
    if (org?.Code === 'ConditionalCheckFailed') throw new NoSuchOrganizationError(`organization ${input.orgId} does not exist`);
    if (member?.Code === 'ConditionalCheckFailed') {
      const existing = membershipOf(unmarshall((member.Item ?? {}) as Record<string, AttributeValue>));
      throw new AlreadyMemberError(
        `${input.userId} is already a member of ${input.orgId} (role ${existing.role}, spending limit ${existing.spending_limit ?? 'none'})`,
        { role: existing.role, spending_limit: existing.spending_limit },
      );
    }
    throw error;
  }
  return membership;
}

/** The caller's membership of one organization; null when not a member or no such organization. */
export async function getMembership(orgId: string, userId: string): Promise<Membership | null> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: membershipKey(orgId, userId), ConsistentRead: true }));
  return result.Item ? membershipOf(result.Item) : null;
}

/** Every organization the user belongs to, with the role in each (one Query on the user's partition). */
export async function listMembershipsOfUser(userId: string): Promise<Membership[]> {
  const { PK, skPrefix } = userMembershipsPrefix(userId);
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': PK, ':prefix': skPrefix },
    ConsistentRead: true,
  });
  return items.map(membershipOf);
}

/** Sets a member's monthly spending limit (null: none); role and created_at stay. */
export const setMemberSpendingLimit = (orgId: string, userId: string, limit: number | null): Promise<Membership> =>
  updateMembership(orgId, userId, 'SET spending_limit = :value', limit);

/** Changes a member's role; spending limit and created_at stay. */
export const setMemberRole = (orgId: string, userId: string, role: Role): Promise<Membership> =>
  updateMembership(orgId, userId, 'SET #role = :value', role);

/** One attribute of an existing membership, or NoSuchMemberError (conditional: never creates one). */
async function updateMembership(orgId: string, userId: string, update: string, value: unknown): Promise<Membership> {
  try {
    const result = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: membershipKey(orgId, userId),
        UpdateExpression: update,
        ConditionExpression: 'attribute_exists(PK)',
        ...(update.includes('#role') ? { ExpressionAttributeNames: { '#role': 'role' } } : {}),
        ExpressionAttributeValues: { ':value': value },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return membershipOf(defined(result.Attributes, 'the updated membership'));
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') throw noSuchMember(orgId, userId);
    throw error;
  }
}

/** Removes a membership and returns it as it was; NoSuchMemberError if there was none. */
export async function removeMembership(orgId: string, userId: string): Promise<Membership> {
  try {
    const result = await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: membershipKey(orgId, userId),
        ConditionExpression: 'attribute_exists(PK)',
        ReturnValues: 'ALL_OLD',
      }),
    );
    return membershipOf(defined(result.Attributes, 'the updated membership'));
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') throw noSuchMember(orgId, userId);
    throw error;
  }
}

/**
 * Every member of an organization, by user id: a Query on GSI1 (operators only; an index read
 * is eventually consistent, so a membership written a moment ago may be missing).
 */
export async function listMembers(orgId: string): Promise<Membership[]> {
  const query = orgMembersIndexQuery(orgId);
  const items = await queryAll({
    IndexName: query.indexName,
    KeyConditionExpression: 'GSI1PK = :pk AND begins_with(GSI1SK, :prefix)',
    ExpressionAttributeValues: { ':pk': query.GSI1PK, ':prefix': query.skPrefix },
  });
  return items.map(membershipOf);
}

const noSuchMember = (orgId: string, userId: string) => new NoSuchMemberError(`${userId} is not a member of ${orgId}`);
