/**
 * An organization's API keys, managed by its owners (`/organizations/{id}/api-keys`): creating
 * one (its token shown once), listing them with this month's and today's spend, changing one,
 * revoking one. A key is a bearer JWT this service signs (lib/auth/api-key-token.ts) bound to one
 * organization, with its own role, monthly and daily limits, addresses, rate and expiry; its
 * record decides, on every request, whether it still stands and from where
 * (lib/auth/api-key-standing.ts).
 */
import { auditSourceOf } from '../auth/access.ts';
import { newApiKeyRecord } from '../auth/api-key-record.ts';
import { signApiKeyToken } from '../auth/api-key-token.ts';
import type { TokenSigner } from '../auth/signer.ts';
import { cursorSigningKey } from '../config.ts';
import {
  type ApiKeyChanges,
  type ApiKeyRecord,
  createApiKey,
  getApiKey,
  listApiKeysPage,
  publishSigningKey,
  revokeApiKey,
  updateApiKey,
} from '../db/api-keys.ts';
import { NO_SPEND, type PeriodSpend, readMemberSpend, readMembersSpend } from '../db/credits.ts';
import { notFound, validationFailed } from '../errors.ts';
import type { Caller } from '../model.ts';
import { openCursor, sealCursor } from '../signed-cursor.ts';
import { asOwner, requireOwner } from './owners.ts';

export const DEFAULT_KEY_LIFETIME_DAYS = 90;
export const MAX_KEY_LIFETIME_DAYS = 365;

/** A key as the API shows it: never its token, which only the 201 of its creation carries. */
export interface ApiKeyView {
  id: string;
  name: string;
  role: ApiKeyRecord['role'];
  spending_limit: number | null;
  /** Credits the key's runs spent this UTC month. */
  spent: number;
  daily_limit: number | null;
  /** Credits the key's runs spent this UTC day. */
  spent_today: number;
  /** MCP calls quoted above this many credits ask first (null: the key sets no threshold). */
  confirm_above: number | null;
  allowed_ips: string[] | null;
  rate_limit: { requests: number } | null;
  created_at: string;
  created_by_id: string;
  expires_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** Only on the grant of an OAuth connection: `oauth`, and the client it was approved for. */
  created_via?: 'oauth';
  client_id?: string;
  client_name?: string | null;
  redirect_uri?: string | null;
}

const viewOf = (key: ApiKeyRecord, spent: PeriodSpend): ApiKeyView => ({
  id: key.id,
  name: key.name,
  role: key.role,
  spending_limit: key.spending_limit,
  spent: spent.month,
  daily_limit: key.daily_limit,
  spent_today: spent.day,
  confirm_above: key.confirm_above ?? null,
  allowed_ips: key.allowed_ips,
  rate_limit: key.rate_limit,
  created_at: key.created_at,
  created_by_id: key.created_by_id,
  expires_at: key.expires_at,
  last_used_at: key.last_used_at,
  revoked_at: key.revoked_at,
  ...(key.oauth
    ? {
        created_via: 'oauth' as const,
        client_id: key.oauth.client_id,
        client_name: key.oauth.client_name,
        redirect_uri: key.oauth.redirect_uri,
      }
    : {}),
});

/** What an owner sets on a key, at its creation (POST) or later (PATCH). */
export interface ApiKeySettings {
  spending_limit?: number | null | undefined;
  daily_limit?: number | null | undefined;
  confirm_above?: number | null | undefined;
  allowed_ips?: string[] | null | undefined;
  rate_limit?: { requests: number } | null | undefined;
}

export interface NewApiKey extends ApiKeySettings {
  name: string;
  role: 'viewer' | 'editor';
  expires_in_days?: number | undefined;
}

/** Signing keys this instance has published already: each is written to the table once per instance at most. */
const published = new Set<string>();

/** Publishes the signer's public half before its first token on this instance, so that the token verifies everywhere at once. */
export async function publishSigningKeyOnce(signer: TokenSigner, now: Date): Promise<void> {
  const jwk = await signer.publicJwk();
  if (published.has(jwk.kid)) return;
  await publishSigningKey(jwk, now);
  published.add(jwk.kid);
}

/**
 * Owners only (an API key: 403 `api_key_not_allowed`; other members 403; anyone else 404). Signs
 * the key's token, then writes the key in one transaction with the condition that its creator is
 * still an owner. The public half of the signing key is published first, so that the token
 * verifies on every instance the moment it exists.
 */
export async function createWorkspaceApiKey(
  caller: Caller,
  orgId: string,
  request: NewApiKey,
  signer: TokenSigner,
  now = new Date(),
): Promise<ApiKeyView & { token: string }> {
  await requireOwner(caller, orgId);
  await publishSigningKeyOnce(signer, now);
  const key = newApiKeyRecord({
    orgId,
    name: request.name,
    role: request.role,
    createdById: caller.userId,
    days: request.expires_in_days ?? DEFAULT_KEY_LIFETIME_DAYS,
    now,
    spendingLimit: request.spending_limit,
    dailyLimit: request.daily_limit,
    confirmAbove: request.confirm_above,
    allowedIps: request.allowed_ips,
    rateLimit: request.rate_limit,
  });
  const token = await signApiKeyToken(signer, {
    keyId: key.id,
    orgId,
    issuedAt: new Date(key.created_at),
    expiresAt: new Date(key.expires_at),
  });
  // The creator may have lost the owner role (or the organization) while the token was being signed.
  await asOwner(createApiKey(key, await auditSourceOf(caller), now));
  return { ...viewOf(key, NO_SPEND), token };
}

export interface ApiKeysPage {
  api_keys: ApiKeyView[];
  next_cursor: string | null;
  has_more: boolean;
}

const cursorScope = (orgId: string) => `api-keys:${orgId}`;

/**
 * Owners only, paged by key id, revoked and expired keys included (they say so). One round trip:
 * the caller's membership, the page and the month's spend counters, read together.
 */
export async function listWorkspaceApiKeys(
  caller: Caller,
  orgId: string,
  query: { limit: number; cursor?: string | undefined },
  now = new Date(),
): Promise<ApiKeysPage> {
  const signingKey = cursorSigningKey();
  const opened = query.cursor === undefined ? undefined : openCursor(query.cursor, signingKey, cursorScope(orgId));
  if (opened && 'problem' in opened)
    throw validationFailed([{ path: ['query', 'cursor'], code: 'invalid_cursor', message: opened.problem }]);
  const [, page, spend] = await Promise.all([
    requireOwner(caller, orgId),
    listApiKeysPage(orgId, query.limit, opened?.position),
    readMembersSpend(orgId, now),
  ]);
  const last = page.keys.at(-1);
  return {
    api_keys: page.keys.map((key) => viewOf(key, spend.get(key.id) ?? NO_SPEND)),
    next_cursor: page.hasMore && last ? sealCursor(cursorScope(orgId), last.id, signingKey) : null,
    has_more: page.hasMore,
  };
}

/**
 * Owners only. The key is refused from its very next request on (401, reason `revoked`), on
 * every instance; a revoked key stays listed. Revoking it again changes nothing (and writes no
 * event); an unknown key is 404. The key is read beside the owner check, then revoked with its
 * `api_key.revoked` event in one transaction.
 */
export async function revokeWorkspaceApiKey(caller: Caller, orgId: string, keyId: string, now = new Date()): Promise<void> {
  const [, read] = await Promise.all([requireOwner(caller, orgId), getApiKey(orgId, keyId)]);
  if (!(await revokeApiKey(orgId, keyId, now, await auditSourceOf(caller), read))) throw notFound();
}

/** What PATCH changes: any of the key's name and role and what ApiKeySettings holds; at least one. */
export interface ApiKeyChange extends ApiKeySettings {
  name?: string | undefined;
  role?: 'viewer' | 'editor' | undefined;
}

/**
 * Owners only. Changes a key that is not revoked (a revoked or unknown key is 404) in one
 * transaction with its `api_key.updated` event (none, and no write, for the current values), and
 * answers it with its spend (the key and its spend read alongside the owner check). In force
 * from the key's next request: its record is read on every request, and a run of the key in
 * flight whose charge has not landed finds its limits or role changed and is decided afresh by
 * the new ones (lib/billing/paid-run.ts).
 */
export async function updateWorkspaceApiKey(
  caller: Caller,
  orgId: string,
  keyId: string,
  change: ApiKeyChange,
  now = new Date(),
): Promise<ApiKeyView> {
  const [, spent, read] = await Promise.all([requireOwner(caller, orgId), readMemberSpend(orgId, keyId, now), getApiKey(orgId, keyId)]);
  const changes: ApiKeyChanges = Object.fromEntries(Object.entries(change).filter(([, value]) => value !== undefined));
  const updated = await updateApiKey(orgId, keyId, changes, await auditSourceOf(caller), now, read);
  if (!updated) throw notFound();
  return viewOf(updated, spent);
}
