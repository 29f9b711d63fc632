/**
 * Invitations by email, as stored (docs/invitations.md). Each invitation is one item in its
 * organization's partition; beside it:
 *
 * - the organization's pending invitations in one versioned item (`INVITATIONS`: id → address and
 *   expiry), which every write of a pending invitation changes. A creation (or a resend that
 *   revives an expired one) decides from it, as read, whether the address has a pending invitation
 *   and whether 50 are pending, and its transaction holds only on that version: two creations at
 *   once cannot both take the address or the last place, and an expired invitation stops counting
 *   without any write;
 * - the address a member joined with (`MEMBER_EMAIL#`), put by the acceptance and deleted with the
 *   membership: a creation's transaction holds only while no member has the address;
 * - the token's item, by the SHA-256 of the token (the token itself is never stored), naming the
 *   invitation; the invitation keeps the hash of its one live token, which a resend replaces and an
 *   acceptance or revocation removes: every other token is dead at once;
 * - the invitee's inbox entry (`INBOX#<address>`), which `GET /me` reads beside the memberships.
 *
 * Every write that decides is one transaction on conditions (never a read, then a write that
 * trusts it): an acceptance holds only while the invitation is pending, unexpired and its token
 * current, so two acceptances give one membership, and an acceptance racing a revocation or a
 * resend is wholly one or the other.
 *
 * Each write's audit event (docs/audit.md) is one more item of its transaction, last: created,
 * resent, revoked; an acceptance writes two, `invitation.accepted` and the new member's
 * `member.added` (a change of two objects, one event each). Never a token or its hash in one.
 */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Role } from '../model.ts';
import { type AuditSource, auditEventPut } from './audit-events.ts';
import { conditionFailed, db, queryAll, type TransactItem, tableName, transact } from './client.ts';
import {
  inboxEntryKey,
  inboxPrefix,
  invitationIdOf,
  invitationKey,
  invitationSlotsKey,
  invitationsPrefix,
  invitationTokenKey,
  memberEmailKey,
  membershipKey,
  orgKey,
} from './keys.ts';
import { type Membership, membershipItem, NotAnOwner, stillAnOwner } from './memberships.ts';

/** What is stored: `pending`, `accepted` or `revoked` (`expired` is a pending one past its expiry, as read). */
export type StoredInvitationStatus = 'pending' | 'accepted' | 'revoked';

export interface InvitationRecord {
  id: string;
  organization_id: string;
  /** The organization's display name when it was invited (the email's subject, the invitee's `GET /me`). */
  organization_name: string;
  email: string;
  role: Role;
  spending_limit: number | null;
  daily_limit: number | null;
  status: StoredInvitationStatus;
  /** The owner's user id; null for an operator's. */
  invited_by: string | null;
  created_at: string;
  /** ISO 8601: the token is refused from this instant on. */
  valid_until: string;
  /** The days it was created with: a resend gives it as many from then. */
  expires_in_days: number;
  accepted_at: string | null;
  accepted_by: string | null;
  revoked_at: string | null;
  /** The SHA-256 (hex) of its one live token; null once accepted or revoked. */
  token_hash: string | null;
}

/** How long an ended invitation (accepted, revoked, or expired) stays listed, then the table's TTL removes it. */
export const ENDED_LISTED_DAYS = 90;
const DAY_MS = 86_400_000;
const epochSeconds = (ms: number) => Math.floor(ms / 1000);

export const invitationOf = (item: Record<string, unknown>): InvitationRecord => ({
  id: String(item.id),
  organization_id: String(item.organization_id),
  organization_name: String(item.organization_name ?? item.organization_id),
  email: String(item.email),
  role: item.role as Role,
  spending_limit: item.spending_limit == null ? null : Number(item.spending_limit),
  daily_limit: item.daily_limit == null ? null : Number(item.daily_limit),
  status: item.status as StoredInvitationStatus,
  invited_by: typeof item.invited_by === 'string' ? item.invited_by : null,
  created_at: String(item.created_at),
  valid_until: String(item.valid_until),
  expires_in_days: Number(item.expires_in_days),
  accepted_at: typeof item.accepted_at === 'string' ? item.accepted_at : null,
  accepted_by: typeof item.accepted_by === 'string' ? item.accepted_by : null,
  revoked_at: typeof item.revoked_at === 'string' ? item.revoked_at : null,
  token_hash: typeof item.token_hash === 'string' ? item.token_hash : null,
});

/** Kept (TTL) until `ENDED_LISTED_DAYS` after `fromMs`: its end, or for a pending one its expiry. */
const keptUntil = (fromMs: number) => epochSeconds(fromMs + ENDED_LISTED_DAYS * DAY_MS);

const invitationItem = (invitation: InvitationRecord): Record<string, unknown> => ({
  ...invitationKey(invitation.organization_id, invitation.id),
  entity: 'invitation',
  ...invitation,
  expires_at: keptUntil(Date.parse(invitation.valid_until)),
});

/** The invitee's inbox entry: what `GET /me` shows of it (never its token), gone with the invitation's expiry. */
const inboxItem = (invitation: InvitationRecord): Record<string, unknown> => ({
  ...inboxEntryKey(invitation.email, invitation.id),
  entity: 'invitation_inbox',
  id: invitation.id,
  organization_id: invitation.organization_id,
  organization_name: invitation.organization_name,
  role: invitation.role,
  spending_limit: invitation.spending_limit,
  daily_limit: invitation.daily_limit,
  invited_by: invitation.invited_by,
  created_at: invitation.created_at,
  valid_until: invitation.valid_until,
  expires_at: epochSeconds(Date.parse(invitation.valid_until)),
});

const tokenItem = (invitation: InvitationRecord, tokenHash: string): Record<string, unknown> => ({
  ...invitationTokenKey(tokenHash),
  entity: 'invitation_token',
  organization_id: invitation.organization_id,
  invitation_id: invitation.id,
  // A day past its expiry: an unknown token and an expired one are answered alike anyway.
  expires_at: epochSeconds(Date.parse(invitation.valid_until) + DAY_MS),
});

// ---------------------------------------------------------------- the pending invitations' item

export interface PendingEntry {
  email: string;
  /** Epoch ms of its expiry. */
  untilMs: number;
}

export interface InvitationSlots {
  /** 0: no item yet. */
  version: number;
  pending: Map<string, PendingEntry>;
}

export async function getInvitationSlots(orgId: string): Promise<InvitationSlots> {
  const { Item: item } = await db().send(new GetCommand({ TableName: tableName(), Key: invitationSlotsKey(orgId), ConsistentRead: true }));
  const stored = (item?.pending ?? {}) as Record<string, { email?: unknown; until_ms?: unknown }>;
  return {
    version: Number(item?.version ?? 0),
    pending: new Map(Object.entries(stored).map(([id, entry]) => [id, { email: String(entry.email), untilMs: Number(entry.until_ms) }])),
  };
}

/** The pending invitations still live at `nowMs`, with `id` set to `entry` (the map a creation or a resend writes). */
function liveWith(
  slots: InvitationSlots,
  id: string,
  entry: PendingEntry,
  nowMs: number,
): Record<string, { email: string; until_ms: number }> {
  const live = Object.fromEntries(
    [...slots.pending]
      .filter(([, each]) => each.untilMs > nowMs)
      .map(([key, each]) => [key, { email: each.email, until_ms: each.untilMs }]),
  );
  live[id] = { email: entry.email, until_ms: entry.untilMs };
  return live;
}

/** Writes the map as read plus one entry, on the condition that nothing changed it since (its version). */
const slotsWrite = (orgId: string, slots: InvitationSlots, map: Record<string, unknown>): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: invitationSlotsKey(orgId),
    UpdateExpression: 'SET pending = :map, version = :next, entity = :entity',
    ConditionExpression: slots.version === 0 ? 'attribute_not_exists(PK)' : 'version = :version',
    ExpressionAttributeValues: {
      ':map': map,
      ':next': slots.version + 1,
      ':entity': 'invitation_slots',
      ...(slots.version === 0 ? {} : { ':version': slots.version }),
    },
  },
});

/** Takes an invitation out of the pending ones; the version moves, so a creation that read before it reads again. */
const slotFreed = (orgId: string, invitationId: string): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: invitationSlotsKey(orgId),
    UpdateExpression: 'REMOVE pending.#id SET version = version + :one',
    ConditionExpression: 'attribute_exists(pending)',
    ExpressionAttributeNames: { '#id': invitationId },
    ExpressionAttributeValues: { ':one': 1 },
  },
});

// ---------------------------------------------------------------- refusals, in the storage's terms

/** The pending invitations changed since they were read: read again and decide afresh. */
export class InvitationSlotsChanged extends Error {}
/** A member has the address (it accepted an invitation to it). */
export class AddressIsAMember extends Error {}
/** The invitation is no longer as read (accepted, revoked, resent or expired meanwhile). */
export class InvitationChanged extends Error {}
/** The caller is a member of the organization already. */
export class AlreadyAMember extends Error {}
/** Who invited no longer holds a role at least the invited one (demoted or removed since). */
export class InviterLacksRole extends Error {}
/** The organization has no owner count yet (an organization older than it): count, then try again. */
export class OwnerCountMissing extends Error {}

/** Runs a transaction whose items are listed with the refusal their failed condition means (null: not a refusal of ours). */
async function decided(items: { item: TransactItem; refusal: (() => Error) | null }[]): Promise<void> {
  await transact(
    items.map(({ item }) => item),
    (reasons) => {
      const failed = items.findIndex(({ refusal }, index) => refusal !== null && conditionFailed(reasons, index));
      return failed < 0 ? null : (items[failed]?.refusal?.() ?? null);
    },
  );
}

/** An invitation's audit event (its target the invitation), one more item of the change's transaction. */
const invitationEvent = (
  invitation: InvitationRecord,
  source: AuditSource,
  event: {
    type: 'invitation.created' | 'invitation.resent' | 'invitation.revoked' | 'invitation.accepted';
    changes?: Record<string, { before: unknown; after: unknown }>;
    details: Record<string, unknown>;
  },
  now: Date,
) => ({
  item: auditEventPut(invitation.organization_id, source, { target: { type: 'invitation', id: invitation.id }, ...event }, now),
  refusal: null,
});

const ownerCheck = (orgId: string, userId: string | null) =>
  userId === null ? [] : [{ item: stillAnOwner(orgId, userId), refusal: () => new NotAnOwner() }];

// ---------------------------------------------------------------- writes

/**
 * A new invitation, in one transaction: its creator still an owner (NotAnOwner; none for an
 * operator's), no member with the address (AddressIsAMember), the pending invitations as read
 * (InvitationSlotsChanged), the invitation, its inbox entry and its token's item.
 */
export async function createInvitation(
  invitation: InvitationRecord,
  tokenHash: string,
  slots: InvitationSlots,
  nowMs: number,
  source: AuditSource,
): Promise<void> {
  const orgId = invitation.organization_id;
  const { email, role, spending_limit, daily_limit, valid_until: expires_at } = invitation;
  await decided([
    ...ownerCheck(orgId, invitation.invited_by),
    {
      item: {
        ConditionCheck: {
          TableName: tableName(),
          Key: memberEmailKey(orgId, invitation.email),
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
      refusal: () => new AddressIsAMember(),
    },
    {
      item: slotsWrite(
        orgId,
        slots,
        liveWith(slots, invitation.id, { email: invitation.email, untilMs: Date.parse(invitation.valid_until) }, nowMs),
      ),
      refusal: () => new InvitationSlotsChanged(),
    },
    {
      item: { Put: { TableName: tableName(), Item: invitationItem(invitation), ConditionExpression: 'attribute_not_exists(PK)' } },
      refusal: null,
    },
    { item: { Put: { TableName: tableName(), Item: inboxItem(invitation) } }, refusal: null },
    { item: { Put: { TableName: tableName(), Item: tokenItem(invitation, tokenHash) } }, refusal: null },
    invitationEvent(
      invitation,
      source,
      { type: 'invitation.created', details: { email, role, spending_limit, daily_limit, expires_at } },
      new Date(nowMs),
    ),
  ]);
}

/**
 * A resend: a new token and expiry for an invitation still pending (expired or not) with the token
 * as read (InvitationChanged), its sender still an owner, the pending invitations as read (with it
 * live again), its inbox entry, and the new token's item. The previous token is dead at once: the
 * invitation no longer holds its hash.
 */
export async function resendInvitation(
  read: InvitationRecord,
  resent: InvitationRecord,
  tokenHash: string,
  senderId: string | null,
  slots: InvitationSlots,
  nowMs: number,
  source: AuditSource,
): Promise<void> {
  const orgId = read.organization_id;
  // An expired one revives: its status as shown, `expired`, is `pending` again.
  const revived = Date.parse(read.valid_until) <= nowMs;
  const changes = {
    expires_at: { before: read.valid_until, after: resent.valid_until },
    ...(revived ? { status: { before: 'expired', after: 'pending' } } : {}),
  };
  await decided([
    ...ownerCheck(orgId, senderId),
    {
      item: {
        Update: {
          TableName: tableName(),
          Key: invitationKey(orgId, read.id),
          UpdateExpression: 'SET token_hash = :next, valid_until = :until, expires_at = :kept',
          ConditionExpression: '#status = :pending AND token_hash = :read',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':next': tokenHash,
            ':until': resent.valid_until,
            ':kept': keptUntil(Date.parse(resent.valid_until)),
            ':pending': 'pending',
            ':read': read.token_hash,
          },
        },
      },
      refusal: () => new InvitationChanged(),
    },
    {
      item: slotsWrite(orgId, slots, liveWith(slots, read.id, { email: read.email, untilMs: Date.parse(resent.valid_until) }, nowMs)),
      refusal: () => new InvitationSlotsChanged(),
    },
    { item: { Put: { TableName: tableName(), Item: inboxItem(resent) } }, refusal: null },
    { item: { Put: { TableName: tableName(), Item: tokenItem(resent, tokenHash) } }, refusal: null },
    invitationEvent(read, source, { type: 'invitation.resent', changes, details: { email: read.email } }, new Date(nowMs)),
  ]);
}

/**
 * Revokes a pending (or expired) invitation, in one transaction: its revoker still an owner, the
 * invitation still pending (InvitationChanged: accepted or revoked meanwhile), its token's hash
 * removed, its place and inbox entry freed.
 */
export async function revokeInvitation(
  invitation: InvitationRecord,
  revokerId: string | null,
  now: Date,
  source: AuditSource,
): Promise<void> {
  const { organization_id: orgId, id: invitationId, email } = invitation;
  await decided([
    ...ownerCheck(orgId, revokerId),
    {
      item: {
        Update: {
          TableName: tableName(),
          Key: invitationKey(orgId, invitationId),
          UpdateExpression: 'SET #status = :revoked, revoked_at = :now, expires_at = :kept REMOVE token_hash',
          ConditionExpression: '#status = :pending',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':revoked': 'revoked',
            ':now': now.toISOString(),
            ':kept': keptUntil(now.getTime()),
            ':pending': 'pending',
          },
        },
      },
      refusal: () => new InvitationChanged(),
    },
    { item: slotFreed(orgId, invitationId), refusal: null },
    { item: { Delete: { TableName: tableName(), Key: inboxEntryKey(email, invitationId) } }, refusal: null },
    invitationEvent(invitation, source, { type: 'invitation.revoked', details: { email } }, now),
  ]);
}

/**
 * Accepts an invitation, in one transaction: the invitation still pending, unexpired and (when
 * accepted by token) that token's (InvitationChanged); the membership with exactly its role and
 * limits and the address recorded, for a user not yet a member (AlreadyAMember); the owner count
 * kept (OwnerCountMissing on an organization older than it); the address claimed for the member;
 * the inviter still holding a role at least the invited one (InviterLacksRole); its place and
 * inbox entry freed; its two audit events, the invitation's and the new member's (actor: the member).
 */
export async function acceptInvitation(
  invitation: InvitationRecord,
  member: Membership,
  proof: { tokenHash: string } | null,
  inviterRoles: readonly Role[] | null,
  now: Date,
  source: AuditSource,
): Promise<void> {
  const orgId = invitation.organization_id;
  const { role, spending_limit, daily_limit } = member;
  const owner = member.role === 'owner';
  const inviterValues = Object.fromEntries((inviterRoles ?? []).map((role, i) => [`:role${i}`, role]));
  await decided([
    {
      item: {
        Update: {
          TableName: tableName(),
          Key: invitationKey(orgId, invitation.id),
          UpdateExpression: 'SET #status = :accepted, accepted_at = :now, accepted_by = :user, expires_at = :kept REMOVE token_hash',
          ConditionExpression: `#status = :pending AND valid_until > :now${proof ? ' AND token_hash = :token' : ''}`,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':accepted': 'accepted',
            ':now': now.toISOString(),
            ':user': member.user_id,
            ':kept': keptUntil(now.getTime()),
            ':pending': 'pending',
            ...(proof ? { ':token': proof.tokenHash } : {}),
          },
        },
      },
      refusal: () => new InvitationChanged(),
    },
    {
      item: { Put: { TableName: tableName(), Item: membershipItem(member), ConditionExpression: 'attribute_not_exists(PK)' } },
      refusal: () => new AlreadyAMember(),
    },
    {
      item: owner
        ? {
            Update: {
              TableName: tableName(),
              Key: orgKey(orgId),
              UpdateExpression: 'ADD owner_count :one',
              ConditionExpression: 'attribute_exists(PK) AND attribute_exists(owner_count)',
              ExpressionAttributeValues: { ':one': 1 },
            },
          }
        : { ConditionCheck: { TableName: tableName(), Key: orgKey(orgId), ConditionExpression: 'attribute_exists(PK)' } },
      refusal: () => (owner ? new OwnerCountMissing() : new InvitationChanged()),
    },
    {
      item: {
        Put: {
          TableName: tableName(),
          Item: { ...memberEmailKey(orgId, invitation.email), entity: 'member_email', user_id: member.user_id, organization_id: orgId },
          ConditionExpression: 'attribute_not_exists(PK) OR user_id = :user',
          ExpressionAttributeValues: { ':user': member.user_id },
        },
      },
      refusal: () => new AlreadyAMember(),
    },
    { item: slotFreed(orgId, invitation.id), refusal: null },
    { item: { Delete: { TableName: tableName(), Key: inboxEntryKey(invitation.email, invitation.id) } }, refusal: null },
    ...(invitation.invited_by !== null && inviterRoles !== null
      ? [
          {
            item: {
              ConditionCheck: {
                TableName: tableName(),
                Key: membershipKey(orgId, invitation.invited_by),
                ConditionExpression: `attribute_exists(PK) AND #role IN (${Object.keys(inviterValues).join(', ')})`,
                ExpressionAttributeNames: { '#role': 'role' },
                ExpressionAttributeValues: inviterValues,
              },
            } satisfies TransactItem,
            refusal: () => new InviterLacksRole(),
          },
        ]
      : []),
    invitationEvent(
      invitation,
      source,
      { type: 'invitation.accepted', details: { email: invitation.email, role, spending_limit, daily_limit } },
      now,
    ),
    {
      item: auditEventPut(
        orgId,
        source,
        { type: 'member.added', target: { type: 'member', id: member.user_id }, details: { role, spending_limit, daily_limit } },
        now,
      ),
      refusal: null,
    },
  ]);
}

// ---------------------------------------------------------------- reads

export async function getInvitation(orgId: string, invitationId: string): Promise<InvitationRecord | null> {
  const { Item: item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: invitationKey(orgId, invitationId), ConsistentRead: true }),
  );
  return item ? invitationOf(item) : null;
}

/** The invitation a token names (by its hash), or null: the token item says which, the invitation whether it is still its token. */
export async function invitationOfToken(tokenHash: string): Promise<{ organization_id: string; invitation_id: string } | null> {
  const { Item: item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: invitationTokenKey(tokenHash), ConsistentRead: true }),
  );
  return item ? { organization_id: String(item.organization_id), invitation_id: String(item.invitation_id) } : null;
}

/** The organization of an invitation to `email` with this id, from the address's inbox; null for none (or another address's). */
export async function inboxEntryOrg(
  email: string,
  invitationId: string,
): Promise<{ organization_id: string; invitation_id: string } | null> {
  const { Item: item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: inboxEntryKey(email, invitationId), ConsistentRead: true }),
  );
  return item ? { organization_id: String(item.organization_id), invitation_id: invitationId } : null;
}

/** The member the address belongs to in the organization (by an accepted invitation), or null. */
export async function memberOfAddress(orgId: string, email: string): Promise<string | null> {
  const { Item: item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: memberEmailKey(orgId, email), ConsistentRead: true }),
  );
  return item ? String(item.user_id) : null;
}

/** Which invitations a listing keeps: by their stored status and times, as of `nowIso`. */
export type InvitationFilter = 'pending' | 'accepted' | 'revoked' | 'expired' | 'all';

/**
 * The filter of a listing: what is still listed (pending; ended less than `ENDED_LISTED_DAYS`
 * ago, since the TTL's removal may come days late), of one status or all.
 */
function filterOf(status: InvitationFilter, nowIso: string, listedSinceIso: string) {
  const conditions: Record<Exclude<InvitationFilter, 'all'>, string> = {
    pending: '(#status = :pending AND valid_until > :now)',
    expired: '(#status = :pending AND valid_until <= :now AND valid_until > :since)',
    accepted: '(#status = :accepted AND accepted_at > :since)',
    revoked: '(#status = :revoked AND revoked_at > :since)',
  };
  const expression = status === 'all' ? Object.values(conditions).join(' OR ') : conditions[status];
  const values: Record<string, string> = {
    ':now': nowIso,
    ':since': listedSinceIso,
    ':pending': 'pending',
    ':accepted': 'accepted',
    ':revoked': 'revoked',
  };
  return {
    FilterExpression: expression,
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: Object.fromEntries(Object.entries(values).filter(([name]) => expression.includes(name))),
  };
}

/**
 * One page of an organization's invitations, newest first (their ids sort by creation time, ties
 * by id), after `beforeId` when given: Queries of its partition until the page is full or the
 * partition read (a filter skips what is not listed).
 */
export async function listInvitationsPage(
  orgId: string,
  status: InvitationFilter,
  limit: number,
  now: Date,
  beforeId?: string,
): Promise<{ invitations: InvitationRecord[]; hasMore: boolean }> {
  const prefix = invitationsPrefix(orgId);
  const filter = filterOf(status, now.toISOString(), new Date(now.getTime() - ENDED_LISTED_DAYS * DAY_MS).toISOString());
  const found: InvitationRecord[] = [];
  let startKey: Record<string, unknown> | undefined = beforeId === undefined ? undefined : invitationKey(orgId, beforeId);
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ...filter,
        ExpressionAttributeValues: { ...filter.ExpressionAttributeValues, ':pk': prefix.PK, ':prefix': prefix.skPrefix },
        ScanIndexForward: false,
        ConsistentRead: true,
        Limit: limit + 1 - found.length,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    found.push(...(page.Items ?? []).map(invitationOf));
    startKey = page.LastEvaluatedKey;
  } while (found.length <= limit && startKey);
  return { invitations: found.slice(0, limit), hasMore: found.length > limit };
}

/** An invitation to an address, as its invitee's `GET /me` shows it. */
export interface InboxEntry {
  id: string;
  organization_id: string;
  organization_name: string;
  role: Role;
  spending_limit: number | null;
  daily_limit: number | null;
  invited_by: string | null;
  created_at: string;
  valid_until: string;
}

/** The invitations pending for an address at `now`, newest first, at most `max` (one Query; expired entries skipped). */
export async function pendingInvitationsTo(email: string, now: Date, max: number): Promise<InboxEntry[]> {
  const prefix = inboxPrefix(email);
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    FilterExpression: 'valid_until > :now',
    ExpressionAttributeValues: { ':pk': prefix.PK, ':prefix': prefix.skPrefix, ':now': now.toISOString() },
    ScanIndexForward: false,
    ConsistentRead: true,
  });
  return items.slice(0, max).map((item) => ({
    id: invitationIdOf(String(item.SK)),
    organization_id: String(item.organization_id),
    organization_name: String(item.organization_name),
    role: item.role as Role,
    spending_limit: item.spending_limit == null ? null : Number(item.spending_limit),
    daily_limit: item.daily_limit == null ? null : Number(item.daily_limit),
    invited_by: typeof item.invited_by === 'string' ? item.invited_by : null,
    created_at: String(item.created_at),
    valid_until: String(item.valid_until),
  }));
}
