import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { defined } from '../defined.ts';
import { AlreadyMemberError, LastOwnerError, NoSuchMemberError, NoSuchOrganizationError } from '../errors.ts';
import type { Role } from '../model.ts';
import { type AuditEventInput, type AuditSource, auditEventPut, changesOf } from './audit-events.ts';
import { type CancellationReason, cancellationReasons, conditionFailed, db, queryAll, type TransactItem, tableName } from './client.ts';
import { limitsUnchanged } from './credits.ts';
import { memberEmailKey, membershipIndexKey, membershipKey, orgKey, orgMembersIndexQuery, userMembershipsPrefix } from './keys.ts';
import { fenceLanes, hasLanes } from './lanes.ts';

export interface Membership {
  organization_id: string;
  user_id: string;
  role: Role;
  /** Monthly (UTC calendar month) spending limit in credits, or null for none. */
  spending_limit: number | null;
  /** Daily (UTC day) spending limit in credits, or null for none. */
  daily_limit: number | null;
  created_at: string;
  /**
   * The verified address the member accepted an invitation with (lower-cased), claimed in its
   * organization by its own item while the membership lasts; absent (null) for a member added by id.
   */
  email?: string | null;
}

/** A membership item as stored (also as a cancelled transaction returns it). */
export const membershipOf = (item: Record<string, unknown>): Membership => ({
  organization_id: item.organization_id as string,
  user_id: item.user_id as string,
  role: item.role as Role,
  spending_limit: item.spending_limit == null ? null : Number(item.spending_limit),
  daily_limit: item.daily_limit == null ? null : Number(item.daily_limit),
  created_at: item.created_at as string,
  email: typeof item.email === 'string' ? item.email : null,
});

/** A membership's item as stored: the organization's member, keyed for the user's index too. */
export const membershipItem = ({ email, ...membership }: Membership): Record<string, unknown> => ({
  ...membershipKey(membership.organization_id, membership.user_id),
  ...membershipIndexKey(membership.organization_id, membership.user_id),
  entity: 'membership',
  ...membership,
  ...(email ? { email } : {}),
});

/**
 * The condition of a change only an owner may make: `userId` is still an owner of the organization
 * when the change is written, so an owner demoted since the request's role check (or while a key's
 * token was being signed) changes nothing. Put first in its transaction: `NotAnOwner` reports it.
 */
export const stillAnOwner = (orgId: string, userId: string): TransactItem => ({
  ConditionCheck: {
    TableName: tableName(),
    Key: membershipKey(orgId, userId),
    ConditionExpression: 'attribute_exists(PK) AND #role = :owner',
    ExpressionAttributeNames: { '#role': 'role' },
    ExpressionAttributeValues: { ':owner': 'owner' },
  },
});

/** A change only an owner may make was refused at `stillAnOwner`: the writer was not (or no longer) an owner. */
export class NotAnOwner extends Error {}

/** `NotAnOwner` when a transaction led by `stillAnOwner` was cancelled at it, else null: a transact() refusal. */
export const notAnOwnerIn = (reasons: CancellationReason[]): NotAnOwner | null => (conditionFailed(reasons, 0) ? new NotAnOwner() : null);

/** Whether a role counts toward the organization's owner count. */
const ownerCount = (member: Pick<Membership, 'role'> | null): number => (member?.role === 'owner' ? 1 : 0);

/** The fields a member's audit events record, as `…/members` shows them. */
const AUDITED_FIELDS = ['role', 'spending_limit', 'daily_limit'] as const;

/**
 * The audit event of a membership going from `from` to `to` (null: none): `member.added` with what
 * it was given, `member.removed` with what it was, `member.updated` with exactly what changed;
 * null when nothing does.
 */
export function memberEvent(from: Membership | null, to: Membership | null): AuditEventInput | null {
  const member = to ?? from;
  if (!member) return null;
  const target = { type: 'member' as const, id: member.user_id };
  const { role, spending_limit, daily_limit } = member;
  if (!from || !to) return { type: to ? 'member.added' : 'member.removed', target, details: { role, spending_limit, daily_limit } };
  const changes = changesOf(from, to, AUDITED_FIELDS);
  return changes ? { type: 'member.updated', target, changes } : null;
}

/** Who changes a membership, for its audit event, and when. */
export interface MemberAudit {
  source: AuditSource;
  now: Date;
}

/** The membership changed between its read and the write: read again. */
class MembershipChanged extends Error {}

/** What a member write needs: whether the organization exists, its owner count, and the membership as it is (consistent reads, in parallel). */
async function readMemberWriteState(orgId: string, userId: string) {
  const [org, member] = await Promise.all([
    db().send(
      new GetCommand({ TableName: tableName(), Key: orgKey(orgId), ConsistentRead: true, ProjectionExpression: 'PK, owner_count, lanes' }),
    ),
    getMembership(orgId, userId),
  ]);
  const count = org.Item?.owner_count;
  return { orgExists: Boolean(org.Item), ownerCount: count === undefined ? undefined : Number(count), member, hot: hasLanes(org.Item) };
}

/**
 * Organizations created before the owner count was kept get it once, counted from the members
 * index (eventually consistent: an owner added in the last moment may be missed, which errs on
 * refusing to remove an owner, never on removing the last one... unless an owner was removed in
 * that moment too). Conditional: whoever sets it first wins.
 */
export async function backfillOwnerCount(orgId: string): Promise<void> {
  const owners = (await listMembers(orgId)).filter((member) => member.role === 'owner').length;
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: orgKey(orgId),
        UpdateExpression: 'SET owner_count = :owners',
        ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(owner_count)',
        ExpressionAttributeValues: { ':owners': owners },
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
}

/**
 * One membership change, in one transaction with the organization's owner count: `from` as read
 * (null: none) becomes `to` (null: removed). The membership must still be as read; a change that
 * takes an owner away needs the count above 1 at that instant, so two owners demoting each other
 * at once leave exactly one (a condition on the count, not a read-then-write).
 */
async function writeMembership(
  orgId: string,
  userId: string,
  from: Membership | null,
  to: Membership | null,
  /** Without a read first: an added owner also needs the count to exist (else CountMissing). */
  blind = false,
  audit?: MemberAudit,
  /** The organization read cold: the write holds only while it still is (then no lane of this member needs a fence). */
  cold = false,
): Promise<void> {
  const key = membershipKey(orgId, userId);
  // As read, limits included: two owners changing one member's limits at once cannot lose either change.
  const limits = from && limitsUnchanged(from);
  const unchanged =
    from && limits
      ? {
          ConditionExpression: `attribute_exists(PK) AND #role = :from AND ${limits.condition}`,
          ExpressionAttributeNames: { '#role': 'role' },
          ExpressionAttributeValues: { ':from': from.role, ...limits.values },
        }
      : { ConditionExpression: 'attribute_not_exists(PK)' };
  const member: TransactItem = to
    ? { Put: { TableName: tableName(), Item: membershipItem(to), ...unchanged } }
    : { Delete: { TableName: tableName(), Key: key, ...unchanged } };
  const delta = ownerCount(to) - ownerCount(from);
  const stillCold = cold ? ' AND attribute_not_exists(lanes)' : '';
  const org: TransactItem =
    delta === 0
      ? {
          ConditionCheck: {
            TableName: tableName(),
            Key: orgKey(orgId),
            ConditionExpression: `attribute_exists(PK)${stillCold}`,
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        }
      : {
          Update: {
            TableName: tableName(),
            Key: orgKey(orgId),
            UpdateExpression: 'ADD owner_count :delta',
            ConditionExpression:
              (delta < 0
                ? 'attribute_exists(PK) AND owner_count > :one'
                : blind
                  ? 'attribute_exists(PK) AND attribute_exists(owner_count)'
                  : 'attribute_exists(PK)') + stillCold,
            ExpressionAttributeValues: { ':delta': delta, ...(delta > 0 ? {} : { ':one': 1 }) },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        };
  // A removed member's address is free again: it may be invited anew (lib/db/invitations.ts).
  const address: TransactItem[] =
    from?.email && !to ? [{ Delete: { TableName: tableName(), Key: memberEmailKey(orgId, from.email) } }] : [];
  const event = audit && memberEvent(from, to);
  const logged = audit && event ? [auditEventPut(orgId, audit.source, event, audit.now)] : [];
  try {
    await db().send(new TransactWriteCommand({ TransactItems: [org, member, ...address, ...logged] }));
  } catch (error) {
    const [orgReason, memberReason] = cancellationReasons(error) ?? [];
    if (orgReason?.Code === 'ConditionalCheckFailed') {
      if (!orgReason.Item) throw new NoSuchOrganizationError(`organization ${orgId} does not exist`);
      // It turned hot since it was read: read again, and fence this member's lanes after the write.
      if (cold && hasLanes(unmarshall(orgReason.Item))) throw new MembershipChanged();
      if (blind && delta > 0) throw new MembershipChanged();
      throw new LastOwnerError(`${userId} is the last owner of ${orgId}: add or promote another owner first`);
    }
    if (memberReason?.Code === 'ConditionalCheckFailed' || memberReason?.Code === 'TransactionConflict') throw new MembershipChanged();
    throw error;
  }
}

/** Up to this many reads and writes when the membership keeps changing under a write. */
const MEMBER_WRITE_ATTEMPTS = 4;

/**
 * Reads the membership and the owner count, then writes `change(current)` (null: remove), again
 * if the membership changed in between. `change` may throw (a refusal) after seeing the current one.
 */
async function changeMembership(
  orgId: string,
  userId: string,
  change: (current: Membership | null) => Membership | null,
  audit: MemberAudit | undefined,
): Promise<{ before: Membership | null; after: Membership | null }> {
  for (let attempt = 1; ; attempt += 1) {
    const state = await readMemberWriteState(orgId, userId);
    if (!state.orgExists) throw new NoSuchOrganizationError(`organization ${orgId} does not exist`);
    if (state.ownerCount === undefined) {
      await backfillOwnerCount(orgId);
      continue;
    }
    const after = change(state.member);
    // A change of nothing (a PUT of the current role and limits) writes nothing, and no event.
    if (state.member && after && !memberEvent(state.member, after)) return { before: state.member, after: state.member };
    try {
      // A cold organization has no lane to fence, if it is still cold when the write lands.
      await writeMembership(orgId, userId, state.member, after, false, audit, state.member !== null && !state.hot);
      // A hot organization's lanes of this member were filled under the old role and limits.
      if (state.member && state.hot) await fenceLanes(orgId, userId);
      return { before: state.member, after };
    } catch (error) {
      if (!(error instanceof MembershipChanged) || attempt >= MEMBER_WRITE_ATTEMPTS) throw error;
    }
  }
}

/**
 * Adds a member. Refuses an existing membership (AlreadyMemberError, nothing changed): changing
 * a member's role or limit has its own writes, so that adding can never reset either.
 */
export async function addMembership(input: {
  orgId: string;
  userId: string;
  role: Role;
  spendingLimit?: number | null;
  dailyLimit?: number | null;
  now?: Date;
  /** Who adds it (the admin CLI's operator): its `member.added` event is written with it. */
  audit?: AuditSource;
}): Promise<Membership> {
  const added: Membership = {
    organization_id: input.orgId,
    user_id: input.userId,
    role: input.role,
    spending_limit: input.spendingLimit ?? null,
    daily_limit: input.dailyLimit ?? null,
    created_at: (input.now ?? new Date()).toISOString(),
  };
  const audit = input.audit && { source: input.audit, now: input.now ?? new Date() };
  // One transaction without a read first (every test workspace and seed adds members this way);
  // an existing member, or an organization without its owner count yet, takes the path below.
  try {
    await writeMembership(input.orgId, input.userId, null, added, true, audit);
    return added;
  } catch (error) {
    if (!(error instanceof MembershipChanged)) throw error;
  }
  const { after } = await changeMembership(
    input.orgId,
    input.userId,
    (current) => {
      if (current) {
        throw new AlreadyMemberError(
          `${input.userId} is already a member of ${input.orgId} (role ${current.role}, spending limit ${current.spending_limit ?? 'none'})`,
          { role: current.role, spending_limit: current.spending_limit },
        );
      }
      return added;
    },
    audit,
  );
  return defined(after, 'the added membership');
}

/**
 * Adds or changes a member (PUT semantics): the role given, each limit given or (when undefined)
 * kept. LastOwnerError when it would demote the last owner.
 */
export async function putMembership(
  orgId: string,
  userId: string,
  change: { role: Role; spendingLimit?: number | null; dailyLimit?: number | null },
  source: AuditSource,
  now = new Date(),
): Promise<{ member: Membership; created: boolean }> {
  const { before, after } = await changeMembership(
    orgId,
    userId,
    (current) => ({
      organization_id: orgId,
      user_id: userId,
      role: change.role,
      spending_limit: change.spendingLimit === undefined ? (current?.spending_limit ?? null) : change.spendingLimit,
      daily_limit: change.dailyLimit === undefined ? (current?.daily_limit ?? null) : change.dailyLimit,
      created_at: current?.created_at ?? now.toISOString(),
      email: current?.email ?? null,
    }),
    { source, now },
  );
  return { member: defined(after, 'the written membership'), created: before === null };
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
export const setMemberSpendingLimit = (orgId: string, userId: string, limit: number | null, source: AuditSource): Promise<Membership> =>
  changeExisting(orgId, userId, (current) => ({ ...current, spending_limit: limit }), source);

/** Sets a member's daily spending limit (null: none); role, monthly limit and created_at stay. */
export const setMemberDailyLimit = (orgId: string, userId: string, limit: number | null, source: AuditSource): Promise<Membership> =>
  changeExisting(orgId, userId, (current) => ({ ...current, daily_limit: limit }), source);

/** Changes a member's role; spending limit and created_at stay. LastOwnerError when it would demote the last owner. */
export const setMemberRole = (orgId: string, userId: string, role: Role, source: AuditSource): Promise<Membership> =>
  changeExisting(orgId, userId, (current) => ({ ...current, role }), source);

async function changeExisting(
  orgId: string,
  userId: string,
  change: (current: Membership) => Membership,
  source: AuditSource,
): Promise<Membership> {
  const { after } = await changeMembership(
    orgId,
    userId,
    (current) => {
      if (!current) throw noSuchMember(orgId, userId);
      return change(current);
    },
    { source, now: new Date() },
  );
  return defined(after, 'the changed membership');
}

/** Removes a membership and returns it as it was; NoSuchMemberError if there was none, LastOwnerError for the last owner. */
export async function removeMembership(orgId: string, userId: string, source: AuditSource, now = new Date()): Promise<Membership> {
  const { before } = await changeMembership(
    orgId,
    userId,
    (current) => {
      if (!current) throw noSuchMember(orgId, userId);
      return null;
    },
    { source, now },
  );
  return defined(before, 'the removed membership');
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

/** One page of an organization's members by user id, from the members index (eventually consistent). */
export async function listMembersPage(
  orgId: string,
  limit: number,
  afterUserId?: string,
): Promise<{ members: Membership[]; hasMore: boolean }> {
  const query = orgMembersIndexQuery(orgId);
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: query.indexName,
      KeyConditionExpression: 'GSI1PK = :pk AND begins_with(GSI1SK, :prefix)',
      ExpressionAttributeValues: { ':pk': query.GSI1PK, ':prefix': query.skPrefix },
      Limit: limit + 1,
      ...(afterUserId === undefined
        ? {}
        : { ExclusiveStartKey: { ...membershipKey(orgId, afterUserId), ...membershipIndexKey(orgId, afterUserId) } }),
    }),
  );
  const items = (result.Items ?? []).map(membershipOf);
  return { members: items.slice(0, limit), hasMore: items.length > limit || result.LastEvaluatedKey !== undefined };
}
