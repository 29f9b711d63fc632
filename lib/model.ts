/**
 * The workspace's vocabulary, shared by every layer: networks, roles, resource kinds, and who
 * may run social operations. Each fact is stated here once; storage, the catalog, the CLI and
 * the docs read it from here. No imports: this module is a leaf.
 */

/** Organization ids: the spec's only rule is the `org_` prefix; the length is bounded too. */
export const ORGANIZATION_ID_PATTERN = /^org_[A-Za-z0-9_-]{1,64}$/;

export const NETWORKS = ['instagram', 'x', 'tiktok', 'youtube', 'facebook', 'linkedin', 'reddit'] as const;
export type Network = (typeof NETWORKS)[number];

/** How each network writes its own name (tool titles, docs). */
export const NETWORK_LABELS: Record<Network, string> = {
  instagram: 'Instagram',
  x: 'X',
  tiktok: 'TikTok',
  youtube: 'YouTube',
  facebook: 'Facebook',
  linkedin: 'LinkedIn',
  reddit: 'Reddit',
};

export const ROLES = ['viewer', 'editor', 'owner'] as const;
export type Role = (typeof ROLES)[number];

/** Roles that may run (and be charged for) social operations. */
export const RUNNER_ROLES: readonly Role[] = ['editor', 'owner'];
export const mayRunOperations = (role: string): boolean => (RUNNER_ROLES as readonly string[]).includes(role);

export const RESOURCE_KINDS = ['asset', 'skill', 'conversation', 'project'] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

/** Who is asking: the verified token's `sub`, the user id memberships are keyed by. */
export interface Caller {
  userId: string;
  /** Set when the token is one of this service's API keys: it acts in its one organization only. */
  apiKey?: ApiKeyCaller;
  /**
   * A user's verified address: the token's `email`, trimmed and lower-cased, when its
   * `email_verified` is `true` (or `"true"`, as federated Cognito users carry it); else absent.
   */
  verifiedEmail?: string;
  /**
   * The request the caller made (set by the HTTP chain): its `x-request-id` and the address it came
   * from as `allowed_ips` reads it, which the audit events of its changes record (docs/audit.md).
   */
  request?: RequestOrigin;
}

/** A request's `x-request-id` and the address it came from (API Gateway's `sourceIp`, as `allowed_ips` reads it). */
export interface RequestOrigin {
  id: string;
  sourceIp: string | null;
}

/** What an API key may do in its organization: the part of its record a membership would hold, and its own rate. */
export interface ApiKeyGrant {
  role: Role;
  spending_limit: number | null;
  daily_limit: number | null;
  /** The key's own consent threshold for MCP calls (lib/mcp/consent.ts); null: none of its own. */
  confirm_above?: number | null;
  created_at: string;
  /** Requests per rate-limit window of the stack, when the key has a rate of its own (at most the stack's). */
  rate_limit: { requests: number } | null;
  /** The OAuth client of a key an OAuth consent minted (its audit events name it); null for a key of the API. */
  client_id?: string | null;
}

/** The largest cap a call may be sent with (`Max-Credits`, MCP `_meta.max_credits`): 0 to this many credits. */
export const MAX_CREDITS_CEILING = 1_000_000;

/** The most addresses and networks an API key may be bound to (`allowed_ips`). */
export const MAX_ALLOWED_IPS = 50;

export interface ApiKeyCaller {
  /** The key's id, also the token's `sub` and so the caller's `userId`. */
  id: string;
  orgId: string;
  /**
   * The key's standing, read from its record alongside the request's own reads (no sequential
   * round trip): resolves to its grant, or rejects with the 401 of a revoked or expired key.
   */
  grant: Promise<ApiKeyGrant>;
}

/**
 * API key ids: `key_` and 32 hex digits. They key spend counters and rate-limit windows the way
 * user ids do, so a user token whose `sub` has this form is refused (lib/auth/claims.ts).
 */
export const API_KEY_ID_PATTERN = /^key_[0-9a-f]{32}$/;
export const isApiKeyId = (id: string): boolean => API_KEY_ID_PATTERN.test(id);

/**
 * Whose own limit and spend counters a payer's are: a member's, or an API key's. A key pays as a
 * member of its organization, its counters keyed by its id; a charge's limits, its 402 and the
 * alerts of its counters all name the payer by this.
 */
export const payerScope = (payerId: string | undefined): 'member' | 'api_key' =>
  payerId !== undefined && isApiKeyId(payerId) ? 'api_key' : 'member';
/** A notification endpoint's id, and the id of an event sent to one (lib/alerts/endpoints.ts). */
export const WEBHOOK_ID_PATTERN = /^whk_[0-9a-f]{32}$/;
export const WEBHOOK_EVENT_ID_PATTERN = /^evt_[0-9a-f]{32}$/;

/** Roles an API key may have: never `owner`, so a key can never manage members, settings or keys. */
export const API_KEY_ROLES = ['viewer', 'editor'] as const;

/** How long a run's result is kept for later runs, and so the most `Cache-Control: max-age` may ask for (seconds). */
export const MAX_CACHED_AGE_SECONDS = 86_400;
