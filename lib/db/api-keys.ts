/**
 * API keys as stored: one item per key in its organization's partition, and the public keys
 * that sign them. Item builders and single sends; what a key may do is decided in lib/auth/.
 */
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiKeyGrant, Role } from '../model.ts';
import { RUNNER_ROLES } from '../model.ts';
import { type AuditSource, auditEventPut, changesOf } from './audit-events.ts';
import { batchGetAll, conditionFailed, db, queryAll, type TransactItem, tableName, transact } from './client.ts';
import { type Limits, limitsUnchanged } from './credits.ts';
import { apiKeyIdOf, apiKeyKey, apiKeysPrefix, orgKey, SIGNING_KEYS_PK, signingKeyKey } from './keys.ts';
import { fenceLanes, orgStillColdItem } from './lanes.ts';
import { notAnOwnerIn, stillAnOwner } from './memberships.ts';

export interface ApiKeyRecord {
  id: string;
  organization_id: string;
  name: string;
  role: Role;
  /** Monthly (UTC calendar month) spending limit in credits, or null for none. */
  spending_limit: number | null;
  /** Daily (UTC day) spending limit in credits, or null for none. */
  daily_limit: number | null;
  /** MCP calls quoted above this many credits run only after consent (lib/mcp/consent.ts); null: never ask (the organization's may). */
  confirm_above?: number | null;
  /** The addresses and networks (CIDR) the key may be used from, as given; null: anywhere. */
  allowed_ips: string[] | null;
  /** The key's own rate (requests per window of the stack), or null: the stack's per-caller limit. */
  rate_limit: { requests: number } | null;
  created_at: string;
  created_by_id: string;
  expires_at: string;
  revoked_at: string | null;
  /** When the key was last seen, to within LAST_USED_GRANULARITY_MS (null: never used). */
  last_used_at: string | null;
  /**
   * An OAuth connection's grant (lib/oauth/): the client it was approved for and the redirect URI
   * the person approved it at (null on grants made before it was kept). Absent: created by the API.
   */
  oauth?: { client_id: string; client_name: string | null; redirect_uri: string | null } | undefined;
}

/** An API key item as stored (also as a cancelled transaction returns it). */
export const apiKeyOf = (item: Record<string, unknown>): ApiKeyRecord => ({
  id: apiKeyIdOf(String(item.SK)),
  organization_id: item.organization_id as string,
  name: item.name as string,
  role: item.role as Role,
  spending_limit: item.spending_limit == null ? null : Number(item.spending_limit),
  daily_limit: item.daily_limit == null ? null : Number(item.daily_limit),
  confirm_above: item.confirm_above == null ? null : Number(item.confirm_above),
  allowed_ips: Array.isArray(item.allowed_ips) ? item.allowed_ips.map(String) : null,
  rate_limit: item.rate_limit_requests == null ? null : { requests: Number(item.rate_limit_requests) },
  created_at: item.created_at as string,
  created_by_id: item.created_by_id as string,
  // `expires_at` is the table's TTL attribute (epoch seconds): a key's expiry is kept apart, so
  // that DynamoDB never deletes a key's record (its revocation and history stay listed).
  expires_at: item.key_expires_at as string,
  revoked_at: (item.revoked_at as string | undefined) ?? null,
  last_used_at: (item.last_used_at as string | undefined) ?? null,
  ...(item.created_via === 'oauth'
    ? {
        oauth: {
          client_id: String(item.client_id),
          client_name: (item.client_name as string | null | undefined) ?? null,
          redirect_uri: (item.redirect_uri as string | undefined) ?? null,
        },
      }
    : {}),
});

/** Whether a key can act at `now`: not revoked and not expired. */
export function standingOf(key: ApiKeyRecord, now: Date): 'active' | 'revoked' | 'expired' {
  if (key.revoked_at !== null) return 'revoked';
  return Date.parse(key.expires_at) <= now.getTime() ? 'expired' : 'active';
}

export const grantOf = (key: ApiKeyRecord): ApiKeyGrant => ({
  role: key.role,
  spending_limit: key.spending_limit,
  daily_limit: key.daily_limit,
  confirm_above: key.confirm_above ?? null,
  created_at: key.created_at,
  rate_limit: key.rate_limit,
  client_id: key.oauth?.client_id ?? null,
});

/**
 * The key's record and whether its organization still exists (a key of a deleted organization is
 * refused), in one consistent BatchGetItem: a revocation counts from the very next request, and a
 * key's request sends as many commands as a user's (its record stands in for the membership).
 */
export async function getApiKeyStanding(orgId: string, keyId: string): Promise<{ key: ApiKeyRecord | null; orgExists: boolean }> {
  const org = orgKey(orgId);
  const items = await batchGetAll([apiKeyKey(orgId, keyId), org]);
  const key = items.find((item) => item.SK !== org.SK);
  return { key: key ? apiKeyOf(key) : null, orgExists: items.some((item) => item.SK === org.SK) };
}

/** A key as stored (an OAuth grant's with its client; its current refresh token's hash comes later, lib/db/oauth-grants.ts). */
export const apiKeyItem = (key: ApiKeyRecord): Record<string, unknown> => ({
  ...apiKeyKey(key.organization_id, key.id),
  entity: 'api_key',
  organization_id: key.organization_id,
  name: key.name,
  role: key.role,
  spending_limit: key.spending_limit,
  daily_limit: key.daily_limit,
  confirm_above: key.confirm_above ?? null,
  allowed_ips: key.allowed_ips,
  rate_limit_requests: key.rate_limit?.requests ?? null,
  created_at: key.created_at,
  created_by_id: key.created_by_id,
  key_expires_at: key.expires_at,
  ...(key.oauth
    ? {
        created_via: 'oauth',
        client_id: key.oauth.client_id,
        client_name: key.oauth.client_name,
        redirect_uri: key.oauth.redirect_uri,
      }
    : {}),
});

/** How a key came to be, in its audit events: by the API (`POST …/api-keys`), or by an OAuth consent. */
const createdVia = (key: ApiKeyRecord) => ({ created_via: key.oauth ? 'oauth' : 'api', client_id: key.oauth?.client_id ?? null });

/** The `api_key.created` event of a new key: what it was given (never its token). */
export function apiKeyCreatedEvent(key: ApiKeyRecord, source: AuditSource, now: Date): TransactItem {
  const { name, role, spending_limit, daily_limit, confirm_above, allowed_ips, rate_limit, expires_at } = key;
  return auditEventPut(
    key.organization_id,
    source,
    {
      type: 'api_key.created',
      target: { type: 'api_key', id: key.id },
      details: { name, role, spending_limit, daily_limit, confirm_above, allowed_ips, rate_limit, expires_at, ...createdVia(key) },
    },
    now,
  );
}

/**
 * Writes a new key with its `api_key.created` event, in one transaction with the condition that
 * its creator is still an owner of the organization (NotAnOwner): an owner demoted while the token
 * was being signed creates nothing.
 */
export async function createApiKey(key: ApiKeyRecord, source: AuditSource, now: Date): Promise<void> {
  await transact(
    [
      stillAnOwner(key.organization_id, key.created_by_id),
      { Put: { TableName: tableName(), Item: apiKeyItem(key), ConditionExpression: 'attribute_not_exists(PK)' } },
      apiKeyCreatedEvent(key, source, now),
    ],
    notAnOwnerIn,
  );
}

/** One key as it is now (consistent), or null. */
export async function getApiKey(orgId: string, keyId: string): Promise<ApiKeyRecord | null> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: apiKeyKey(orgId, keyId), ConsistentRead: true }));
  return Item ? apiKeyOf(Item) : null;
}

/** One page of an organization's keys, by id. */
export async function listApiKeysPage(
  orgId: string,
  limit: number,
  afterKeyId?: string,
): Promise<{ keys: ApiKeyRecord[]; hasMore: boolean }> {
  const { PK, skPrefix } = apiKeysPrefix(orgId);
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': PK, ':prefix': skPrefix },
      ConsistentRead: true,
      Limit: limit + 1,
      ...(afterKeyId === undefined ? {} : { ExclusiveStartKey: apiKeyKey(orgId, afterKeyId) }),
    }),
  );
  const keys = (result.Items ?? []).map(apiKeyOf);
  return { keys: keys.slice(0, limit), hasMore: keys.length > limit || result.LastEvaluatedKey !== undefined };
}

/** Every key of an organization, by id (the operator's listing). */
export async function listApiKeys(orgId: string): Promise<ApiKeyRecord[]> {
  const { PK, skPrefix } = apiKeysPrefix(orgId);
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': PK, ':prefix': skPrefix },
    ConsistentRead: true,
  });
  return items.map(apiKeyOf);
}

/** The key changed (or vanished) between its read and the write: read again. */
class KeyChanged extends Error {}

/** Up to this many reads and writes while a key keeps changing under a write. */
const KEY_WRITE_ATTEMPTS = 4;

/**
 * `write(key)` on the key as read (`read`, or read now when undefined), again on the key as it is
 * when a concurrent write changed it first (its transaction's item 0 failed its condition).
 */
async function withKeyAsRead<T>(
  orgId: string,
  keyId: string,
  read: ApiKeyRecord | null | undefined,
  write: (key: ApiKeyRecord | null) => Promise<T>,
): Promise<T> {
  let key = read === undefined ? await getApiKey(orgId, keyId) : read;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await write(key);
    } catch (error) {
      if (!(error instanceof KeyChanged) || attempt >= KEY_WRITE_ATTEMPTS) throw error;
    }
    key = await getApiKey(orgId, keyId);
  }
}

const changedUnderUs = (reasons: Parameters<typeof conditionFailed>[0]) => (conditionFailed(reasons, 0) ? new KeyChanged() : null);

/** The key's organization turned hot since the change was sent on the condition that it was cold. */
class OrganizationHot extends Error {}

/**
 * A change of what a charge on a key's credit lanes no longer checks (its limits, role, a
 * revocation), then the fence of those lanes (lib/db/lanes.ts). Sent first on the condition that
 * the organization is cold, which has no lane to fence (the same round trips as before lanes);
 * for a hot one, sent without it, then fenced.
 */
async function writeKeyAndFence(orgId: string, keyId: string, items: TransactItem[]): Promise<void> {
  try {
    await transact([...items, orgStillColdItem(orgId)], (reasons) =>
      conditionFailed(reasons, items.length) ? new OrganizationHot() : changedUnderUs(reasons),
    );
    return;
  } catch (error) {
    if (!(error instanceof OrganizationHot)) throw error;
  }
  await transact(items, changedUnderUs);
  await fenceLanes(orgId, keyId);
}

/**
 * Revokes a key: `revoked_at` is set once, in one transaction with its `api_key.revoked` event,
 * on the condition that it was not revoked meanwhile. A key revoked already is returned as it is,
 * and nothing is written (a second revocation is no change). Returns the key as revoked, or null
 * when there is no such key. `read`: the key as the caller read it beside its other reads.
 */
export async function revokeApiKey(
  orgId: string,
  keyId: string,
  now: Date,
  source: AuditSource,
  read?: ApiKeyRecord | null,
): Promise<ApiKeyRecord | null> {
  return withKeyAsRead(orgId, keyId, read, async (key) => {
    if (!key || key.revoked_at !== null) return key;
    await writeKeyAndFence(orgId, keyId, [
      {
        Update: {
          TableName: tableName(),
          Key: apiKeyKey(orgId, keyId),
          UpdateExpression: 'SET revoked_at = :now',
          ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(revoked_at)',
          ExpressionAttributeValues: { ':now': now.toISOString() },
        },
      },
      auditEventPut(
        orgId,
        source,
        { type: 'api_key.revoked', target: { type: 'api_key', id: keyId }, details: { name: key.name, ...createdVia(key) } },
        now,
      ),
    ]);
    return { ...key, revoked_at: now.toISOString() };
  });
}

/** What an owner may change of a key (PATCH): each field given is set, the others kept. */
export interface ApiKeyChanges {
  name?: string;
  role?: Role;
  spending_limit?: number | null;
  daily_limit?: number | null;
  confirm_above?: number | null;
  allowed_ips?: string[] | null;
  rate_limit?: { requests: number } | null;
}

/** The fields PATCH takes, as the key's routes show them (its `api_key.updated` event's `changes`). */
const PATCHED_FIELDS = ['name', 'role', 'spending_limit', 'daily_limit', 'confirm_above', 'allowed_ips', 'rate_limit'] as const;

/** Each field as stored (the key's rate is kept as its number of requests). */
const storedOf = (key: Pick<ApiKeyRecord, (typeof PATCHED_FIELDS)[number]>): Record<string, unknown> => ({
  name: key.name,
  role: key.role,
  spending_limit: key.spending_limit,
  daily_limit: key.daily_limit,
  confirm_above: key.confirm_above ?? null,
  allowed_ips: key.allowed_ips,
  rate_limit_requests: key.rate_limit?.requests ?? null,
});

const STORED_NAME: Record<(typeof PATCHED_FIELDS)[number], string> = {
  name: 'name',
  role: 'role',
  spending_limit: 'spending_limit',
  daily_limit: 'daily_limit',
  confirm_above: 'confirm_above',
  allowed_ips: 'allowed_ips',
  rate_limit: 'rate_limit_requests',
};

/**
 * Changes a key that exists and is not revoked, in one transaction with its `api_key.updated`
 * event: the fields that change, on the condition that each still holds the value read (so the
 * event's `before` is exact) and the key is still not revoked. A change of nothing writes nothing.
 * Returns the key as changed, or null when there is no such key or it is revoked. The key's next
 * request reads it (lib/auth/api-key-standing.ts), and a charge in flight that read the old limits
 * or role finds them changed and re-reads (apiKeyMayPayItem). `read`: the key as the caller read it.
 */
export async function updateApiKey(
  orgId: string,
  keyId: string,
  changes: ApiKeyChanges,
  source: AuditSource,
  now: Date,
  read?: ApiKeyRecord | null,
): Promise<ApiKeyRecord | null> {
  return withKeyAsRead(orgId, keyId, read, async (key) => {
    if (!key || key.revoked_at !== null) return null;
    const after: ApiKeyRecord = { ...key, ...changes };
    const changed = changesOf(key, after, PATCHED_FIELDS);
    if (!changed) return key;
    const fields = Object.keys(changed) as (typeof PATCHED_FIELDS)[number][];
    const [was, is] = [storedOf(key), storedOf(after)];
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const sets: string[] = [];
    const conditions = ['attribute_exists(PK)', 'attribute_not_exists(revoked_at)'];
    fields.forEach((field, i) => {
      const stored = STORED_NAME[field];
      names[`#f${i}`] = stored;
      values[`:f${i}`] = is[stored];
      sets.push(`#f${i} = :f${i}`);
      if (was[stored] === null) {
        values[':null'] = 'NULL';
        conditions.push(`(attribute_not_exists(#f${i}) OR attribute_type(#f${i}, :null))`);
      } else {
        values[`:was${i}`] = was[stored];
        conditions.push(`#f${i} = :was${i}`);
      }
    });
    await writeKeyAndFence(orgId, keyId, [
      {
        Update: {
          TableName: tableName(),
          Key: apiKeyKey(orgId, keyId),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      },
      auditEventPut(orgId, source, { type: 'api_key.updated', target: { type: 'api_key', id: keyId }, changes: changed }, now),
    ]);
    return after;
  });
}

/** `last_used_at` is written at most once per this much time per key, not on every request. */
export const LAST_USED_GRANULARITY_MS = 15 * 60_000;

/**
 * Moves `last_used_at` to `now` if it is older than the granularity (or unset): one conditional
 * write per key per 15 minutes, whatever the request rate and however many instances see it.
 */
export async function touchApiKey(orgId: string, keyId: string, now: Date): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: apiKeyKey(orgId, keyId),
        UpdateExpression: 'SET last_used_at = :now',
        ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(last_used_at) OR last_used_at < :stale)',
        ExpressionAttributeValues: {
          ':now': now.toISOString(),
          ':stale': new Date(now.getTime() - LAST_USED_GRANULARITY_MS).toISOString(),
        },
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
}

/**
 * The key may pay for a run (pure): it exists, may run operations, still has the limits read, is
 * not revoked and has not expired. Its item comes back on failure, so the refusal can say
 * which (a revocation racing the charge is a 401, not a charge).
 */
export function apiKeyMayPayItem(orgId: string, keyId: string, limits: Limits, now: Date): TransactItem {
  const roleValues = Object.fromEntries(RUNNER_ROLES.map((role, i) => [`:role${i}`, role]));
  const limitCondition = limitsUnchanged(limits);
  return {
    ConditionCheck: {
      TableName: tableName(),
      Key: apiKeyKey(orgId, keyId),
      ConditionExpression: [
        'attribute_exists(PK)',
        `#role IN (${Object.keys(roleValues).join(', ')})`,
        limitCondition.condition,
        'attribute_not_exists(revoked_at)',
        'key_expires_at > :now',
      ].join(' AND '),
      ExpressionAttributeNames: { '#role': 'role' },
      ExpressionAttributeValues: { ...roleValues, ...limitCondition.values, ':now': now.toISOString() },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

// ---------------------------------------------------------------- signing keys

/** A public JWK with its `kid`, as published. */
export type PublicJwk = Record<string, unknown> & { kid: string };

/**
 * Publishes a signing key's public half. Idempotent without a condition: the kid is the key's
 * thumbprint, so a second write of it writes the same JWK, and the first publication's instant stays.
 */
export async function publishSigningKey(jwk: PublicJwk, now: Date): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: signingKeyKey(jwk.kid),
      UpdateExpression: 'SET entity = :entity, jwk = :jwk, published_at = if_not_exists(published_at, :now)',
      ExpressionAttributeValues: { ':entity': 'signing_key', ':jwk': JSON.stringify(jwk), ':now': now.toISOString() },
    }),
  );
}

/** Every published signing key (the service's JWKS). */
export async function listSigningKeys(): Promise<PublicJwk[]> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': SIGNING_KEYS_PK },
    ConsistentRead: true,
  });
  return items.map((item) => JSON.parse(String(item.jwk)) as PublicJwk);
}
