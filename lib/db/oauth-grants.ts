/**
 * OAuth grants as stored: the grant is an API key item (created_via `oauth`, its client, a
 * refresh generation), and each approval's one-time code its own item. Every write is one
 * conditional command, so that two racing exchanges of a code or a refresh token cannot both win.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Role } from '../model.ts';
import { type ApiKeyRecord, apiKeyItem, apiKeyOf } from './api-keys.ts';
import { cancellationReasons, db, tableName } from './client.ts';
import { apiKeyKey, membershipKey, oauthCodeKey } from './keys.ts';

export interface OAuthCode {
  organization_id: string;
  key_id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  /** Epoch ms after which the code is refused. */
  valid_until_ms: number;
}

/** Kept a day past its use, so that a second use is recognized (and revokes the grant) long after the first. */
const CODE_RECORD_SECONDS = 86_400;

/** The person was no longer a member with one of `roles` when the grant was to be written. */
export class RoleNotHeld extends Error {}

/**
 * Writes the grant's key and its code in one transaction, with the condition that the person still
 * holds one of `personRoles` in the organization (a role at least the key's).
 */
export async function createOAuthGrant(key: ApiKeyRecord, code: OAuthCode, codeHash: string, personRoles: readonly Role[]): Promise<void> {
  const roleValues = Object.fromEntries(personRoles.map((role, i) => [`:role${i}`, role]));
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
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
        ],
      }),
    );
  } catch (error) {
    if (cancellationReasons(error)?.[0]?.Code === 'ConditionalCheckFailed') throw new RoleNotHeld();
    throw error;
  }
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
});

/**
 * Moves a grant's refresh generation from `generation` to the next, if the grant is of `clientId`,
 * not revoked and not expired. `{key}` as moved; else `{stored}`, the key as it is (null: none),
 * for the caller to tell a reuse from a refusal.
 */
export async function advanceRefreshGeneration(
  orgId: string,
  keyId: string,
  clientId: string,
  generation: number,
  now: Date,
): Promise<{ key: ApiKeyRecord; generation: number } | { stored: { key: ApiKeyRecord; generation: number } | null }> {
  try {
    const result = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: apiKeyKey(orgId, keyId),
        UpdateExpression: 'SET refresh_generation = refresh_generation + :one',
        ConditionExpression:
          'attribute_exists(PK) AND created_via = :oauth AND client_id = :client AND refresh_generation = :generation AND attribute_not_exists(revoked_at) AND key_expires_at > :now',
        ExpressionAttributeValues: {
          ':one': 1,
          ':oauth': 'oauth',
          ':client': clientId,
          ':generation': generation,
          ':now': now.toISOString(),
        },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    const item = result.Attributes ?? {};
    return { key: apiKeyOf(item), generation: Number(item.refresh_generation) };
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    const item = storedItemOf(error);
    return { stored: item ? { key: apiKeyOf(item), generation: Number(item.refresh_generation ?? -1) } : null };
  }
}

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
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: apiKeyKey(orgId, keyId),
        UpdateExpression: 'SET revoked_at = if_not_exists(revoked_at, :now)',
        ConditionExpression: 'attribute_exists(PK) AND created_via = :oauth AND client_id = :client',
        ExpressionAttributeValues: { ':now': now.toISOString(), ':oauth': 'oauth', ':client': clientId },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return 'revoked';
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    return storedItemOf(error) ? 'other_client' : 'none';
  }
}
