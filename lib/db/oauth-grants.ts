/**
 * OAuth grants as stored: the grant is an API key item (created_via `oauth`, its client, and the
 * SHA-256 of its current refresh token, `refresh_hash`); each approval's one-time code is its own
 * item, so is each refresh token issued (by its hash), and each consent ticket's nonce once an
 * approval spent it. Every write that decides is one conditional command, so that two racing
 * exchanges of a code, two refreshes with one token, or two approvals of one ticket cannot both win.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Role } from '../model.ts';
import { type ApiKeyRecord, apiKeyCreatedEvent, apiKeyItem, apiKeyOf } from './api-keys.ts';
import type { AuditSource } from './audit-events.ts';
import { conditionFailed, db, requestDeadlineMs, tableName, transact } from './client.ts';
import { retryConflicts } from './conflict-retry.ts';
import { apiKeyKey, membershipKey, oauthCodeKey, oauthRefreshTokenKey, oauthTicketNonceKey } from './keys.ts';

export interface OAuthCode {
  organization_id: string;
  key_id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  /** Epoch ms after which the code is refused. */
  valid_until_ms: number;
  /** The grant's expiry (ISO), which its refresh tokens' items live past; null on a code written before it was kept. */
  key_expires_at: string | null;
}

/** Kept a day past its use, so that a second use is recognized (and revokes the grant) long after the first. */
const CODE_RECORD_SECONDS = 86_400;

/** The person was no longer a member with one of `roles` when the grant was to be written. */
export class RoleNotHeld extends Error {}

/** The consent ticket's nonce was spent by an approval before: a ticket approves once. */
export class TicketSpent extends Error {}

/**
 * Writes the grant's key and its code in one transaction, with the conditions that the person still
 * holds one of `personRoles` in the organization (a role at least the key's), and that no approval
 * spent the ticket's nonce before (its item, kept a day past the ticket's life, is put here).
 */
export async function createOAuthGrant(
  key: ApiKeyRecord,
  code: OAuthCode,
  codeHash: string,
  personRoles: readonly Role[],
  ticket: { nonce: string; untilMs: number },
  /** The approving person, for the key's `api_key.created` event (written in the same transaction). */
  source: AuditSource,
  now: Date,
): Promise<void> {
  const roleValues = Object.fromEntries(personRoles.map((role, i) => [`:role${i}`, role]));
  // Sent again when it loses to a concurrent transaction (a form posted twice at once): the
  // second attempt then finds the nonce spent.
  await transact(
    [
      {
        ConditionCheck: {
          TableName: tableName(),
          Key: membershipKey(key.organization_id, key.created_by_id),
          ConditionExpression: `attribute_exists(PK) AND #role IN (${Object.keys(roleValues).join(', ')})`,
          ExpressionAttributeNames: { '#role': 'role' },
          ExpressionAttributeValues: roleValues,
        },
      },
      { Put: { TableName: tableName(), Item: apiKeyItem(key), ConditionExpression: 'attribute_not_exists(PK)' } },
      {
        Put: {
          TableName: tableName(),
          Item: {
            ...oauthCodeKey(codeHash),
            entity: 'oauth_code',
            ...code,
            expires_at: Math.floor(code.valid_until_ms / 1000) + CODE_RECORD_SECONDS,
          },
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
      {
        Put: {
          TableName: tableName(),
          Item: {
            ...oauthTicketNonceKey(ticket.nonce),
            entity: 'oauth_ticket_nonce',
            organization_id: key.organization_id,
            key_id: key.id,
            expires_at: Math.floor(ticket.untilMs / 1000) + CODE_RECORD_SECONDS,
          },
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
      apiKeyCreatedEvent(key, source, now),
    ],
    // The ticket first: a form posted twice is that, whatever else changed meanwhile.
    (reasons) => (conditionFailed(reasons, 3) ? new TicketSpent() : conditionFailed(reasons, 0) ? new RoleNotHeld() : null),
  );
}

/**
 * Marks a code used, once: `{code}` for the first use, `{reused}` (the code as stored) for any
 * later one, null for no such code.
 */
export async function redeemOAuthCode(codeHash: string, now: Date): Promise<{ code: OAuthCode } | { reused: OAuthCode } | null> {
  try {
    const result = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: oauthCodeKey(codeHash),
        UpdateExpression: 'SET used_at = :now',
        ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(used_at)',
        ExpressionAttributeValues: { ':now': now.toISOString() },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { code: codeOf(result.Attributes ?? {}) };
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    const item = storedItemOf(error);
    return item ? { reused: codeOf(item) } : null;
  }
}

/** The item a failed condition returned (raw attribute values, which the document client leaves as they are). */
const storedItemOf = (error: unknown): Record<string, unknown> | undefined => {
  const raw = (error as { Item?: Record<string, AttributeValue> }).Item;
  return raw ? unmarshall(raw) : undefined;
};

const codeOf = (item: Record<string, unknown>): OAuthCode => ({
  organization_id: String(item.organization_id),
  key_id: String(item.key_id),
  client_id: String(item.client_id),
  redirect_uri: String(item.redirect_uri),
  code_challenge: String(item.code_challenge),
  valid_until_ms: Number(item.valid_until_ms),
  key_expires_at: typeof item.key_expires_at === 'string' ? item.key_expires_at : null,
});

// ---------------------------------------------------------------- refresh tokens

/** A refresh token as issued: the grant and client it was issued to. */
export interface OAuthRefreshToken {
  organization_id: string;
  key_id: string;
  client_id: string;
  issued_at: string;
}

/** The grant may be given a token: the client's OAuth grant, not revoked, not expired. */
const GRANT_LIVE =
  'attribute_exists(PK) AND created_via = :oauth AND client_id = :client AND attribute_not_exists(revoked_at) AND key_expires_at > :now';

/** A single write that met a transaction holding its item (a charge checks the key's record): refused unwritten, sent again. */
const heldByTransaction = (error: unknown): boolean => (error as Error | null)?.name === 'TransactionConflictException';

/**
 * One conditional UpdateItem on a grant's key: the item as written, or as it stood when the
 * condition refused it (null: no such item).
 */
async function updateGrant(
  input: Omit<UpdateCommandInput, 'TableName'>,
): Promise<{ written: Record<string, unknown> } | { refused: Record<string, unknown> | null }> {
  try {
    const result = await retryConflicts(
      () =>
        db().send(
          new UpdateCommand({ TableName: tableName(), ...input, ReturnValues: 'ALL_NEW', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }),
        ),
      heldByTransaction,
      requestDeadlineMs(),
    );
    return { written: result.Attributes ?? {} };
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    return { refused: storedItemOf(error) ?? null };
  }
}

/**
 * Makes `tokenHash` the grant's first refresh token (its code's exchange), if the grant is
 * `clientId`'s, live, and has none yet. The key, or null when refused.
 */
export async function issueFirstRefreshToken(
  orgId: string,
  keyId: string,
  clientId: string,
  tokenHash: string,
  now: Date,
): Promise<ApiKeyRecord | null> {
  const outcome = await updateGrant({
    Key: apiKeyKey(orgId, keyId),
    UpdateExpression: 'SET refresh_hash = :next',
    ConditionExpression: `${GRANT_LIVE} AND attribute_not_exists(refresh_hash)`,
    ExpressionAttributeValues: { ':oauth': 'oauth', ':client': clientId, ':now': now.toISOString(), ':next': tokenHash },
  });
  return 'written' in outcome ? apiKeyOf(outcome.written) : null;
}

/**
 * Rotates the grant's refresh token from `presentedHash` to `nextHash`, in one conditional write
 * that holds only while the grant is `clientId`'s, live, and `presentedHash` its current token: of
 * two rotations with one token, one wins. `{key}` as rotated; else `{stored}`: the key as it stood
 * and its current token's hash (null: no such key), for the caller to tell a reuse from the rest.
 */
export async function rotateRefreshToken(
  orgId: string,
  keyId: string,
  clientId: string,
  presentedHash: string,
  nextHash: string,
  now: Date,
): Promise<{ key: ApiKeyRecord } | { stored: { key: ApiKeyRecord; refreshHash: string | null } | null }> {
  const outcome = await updateGrant({
    Key: apiKeyKey(orgId, keyId),
    UpdateExpression: 'SET refresh_hash = :next',
    ConditionExpression: `${GRANT_LIVE} AND refresh_hash = :presented`,
    ExpressionAttributeValues: {
      ':oauth': 'oauth',
      ':client': clientId,
      ':now': now.toISOString(),
      ':presented': presentedHash,
      ':next': nextHash,
    },
  });
  if ('written' in outcome) return { key: apiKeyOf(outcome.written) };
  const item = outcome.refused;
  return { stored: item ? { key: apiKeyOf(item), refreshHash: typeof item.refresh_hash === 'string' ? item.refresh_hash : null } : null };
}

/**
 * Records a refresh token issued to a grant, until `until` (past the grant's end, so that a reuse
 * is recognized as long as the grant could be used). No condition: its key is the hash of 256
 * random bits, and the item of a token never handed out (its rotation refused) is never looked up.
 */
export async function putRefreshToken(tokenHash: string, token: OAuthRefreshToken, until: Date): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...oauthRefreshTokenKey(tokenHash),
        entity: 'oauth_refresh_token',
        ...token,
        expires_at: Math.floor(until.getTime() / 1000),
      },
    }),
  );
}

/** A refresh token this service issued, by its hash (consistent: it may have been issued a moment ago); null for none. */
export async function getRefreshToken(tokenHash: string): Promise<OAuthRefreshToken | null> {
  const { Item: item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: oauthRefreshTokenKey(tokenHash), ConsistentRead: true }),
  );
  if (!item) return null;
  return {
    organization_id: String(item.organization_id),
    key_id: String(item.key_id),
    client_id: String(item.client_id),
    issued_at: String(item.issued_at),
  };
}

// ---------------------------------------------------------------- revocation

/**
 * Revokes the grant `keyId` if it is `clientId`'s (RFC 7009: a client revokes only its own), in one
 * conditional write: `revoked` (also when it was revoked before: revocation is idempotent),
 * `other_client` when the key is not an OAuth grant of that client (nothing changed), `none` when
 * there is no such key.
 */
export async function revokeOAuthGrant(
  orgId: string,
  keyId: string,
  clientId: string,
  now: Date,
): Promise<'revoked' | 'other_client' | 'none'> {
  const outcome = await updateGrant({
    Key: apiKeyKey(orgId, keyId),
    UpdateExpression: 'SET revoked_at = if_not_exists(revoked_at, :now)',
    ConditionExpression: 'attribute_exists(PK) AND created_via = :oauth AND client_id = :client',
    ExpressionAttributeValues: { ':now': now.toISOString(), ':oauth': 'oauth', ':client': clientId },
  });
  if ('written' in outcome) return 'revoked';
  return outcome.refused ? 'other_client' : 'none';
}

/**
 * Revokes the grant whose current refresh token is `tokenHash`, if it is `clientId`'s, in one
 * conditional write: `revoked` (also when revoked before), `other_client` for the current token of
 * another client's grant, `not_current` when the key exists but `tokenHash` is not its current
 * token (an older one, or none of its), `none` when there is no such key.
 */
export async function revokeByCurrentRefreshToken(
  orgId: string,
  keyId: string,
  clientId: string,
  tokenHash: string,
  now: Date,
): Promise<'revoked' | 'other_client' | 'not_current' | 'none'> {
  const outcome = await updateGrant({
    Key: apiKeyKey(orgId, keyId),
    UpdateExpression: 'SET revoked_at = if_not_exists(revoked_at, :now)',
    ConditionExpression: 'attribute_exists(PK) AND created_via = :oauth AND client_id = :client AND refresh_hash = :token',
    ExpressionAttributeValues: { ':now': now.toISOString(), ':oauth': 'oauth', ':client': clientId, ':token': tokenHash },
  });
  if ('written' in outcome) return 'revoked';
  if (!outcome.refused) return 'none';
  return outcome.refused.refresh_hash === tokenHash ? 'other_client' : 'not_current';
}
