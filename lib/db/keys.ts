/**
 * Pure key builders: every PK/SK format of the table is here and nowhere else.
 *
 *   ORG#<org>         ORG                       organization (name, networks, balance, limits)
 *   ORGS              ORG#<org>                 directory entry of an organization (id, name, created_at): `org list`
 *   ORG#<org>         EVENT#<created_at>#<id>   billing event (sorted by time)
 *   ORG#<org>         SLUG#<slug>               claim on a project slug by a live project
 *   ORG#<org>         SKILLNAME#<name>          claim on a custom skill name by a live skill
 *   USER#<user>       MEMBER#<org>              membership (role, spending limit); GSI1 = ORG#<org> / MEMBER#<user>
 *   <KIND>#<id>       <KIND>                    asset / skill / conversation / project; while deleted, GSI1 = TRASH#<org> / <deleted_at>#<kind>#<id>
 *   RATE#<sub>        WINDOW#<start>            fixed-window request counter (TTL)
 *   ORG#<org>         SPEND#<yyyy-mm>           credits the organization spent in a UTC month, and on each of its days (TTL)
 *   ORG#<org>         SPEND#<yyyy-mm>#USER#<u>  credits one member spent in a UTC month, and on each of its days (TTL)
 *   LANE#<org>        <payer>#<nn>              credit lane nn of one payer of a hot organization (credits off its balance, their
 *                                               month and day); while it holds credits, GSI1 = LANES_FILLED / <filled at>#<key>
 *   IDEM#<org>#<u>#<h> IDEM                     Idempotency-Key record of a social run; h = sha256(key) (TTL 24 h)
 *   ORG#<org>         PENDING#<charge id>       charged run not yet settled or refunded; GSI1 = SWEEP#<shard> / <sweep after>#<charge id>
 *   RESULT#<org>#<op>#<h> RESULT                 a run's result, for runs with Cache-Control: max-age; h = sha256 of the input (TTL 24 h)
 *   ORG#<org>         APIKEY#<key id>           API key (name, role, limit, expiry, revocation); its spend counters are a member's, by key id
 *   SIGNING_KEYS      KID#<kid>                 a public key that signs API keys (JWK): the JWKS verifiers and /.well-known/jwks.json read
 *   JOB#<job>         JOB                       a bulk job (operation, status, counters, webhook); its organization's `active_jobs` counts it while active
 *   JOB#<job>         ITEM#<index, 4 digits>    one input of a job: its status, output or error, charge
 *   JOBKEY#<org>#<u>#<h> JOBKEY                 Idempotency-Key of a job's creation: the job it created (TTL 24 h)
 *   ACTIVE_JOBS       JOB#<job>                 a job queued or running (written with it, deleted when it ends): its messages can be sent again
 *   USAGE#<org>       <H|D>#<bucket start>#<operation>#<payer>  usage counters of one hour or day, operation and payer (member or API key) (TTL 400 days)
 *   USAGE_EVENT#<event id> COUNTED             the marker that a billing event is in the usage counters: it is counted once (TTL 400 days)
 *   ORG#<org>         ALERTS                    the organization's alert settings (low balance, thresholds); absent: the defaults
 *   ALERT_EVENT#<id>  EVENT                     an alert event as first produced, once per event id (TTL 40 days)
 *   ORG#<org>         WEBHOOK#<webhook id>      an owners' notification endpoint (URL, events, secret)
 *   ORG#<org>         WEBHOOKS                  how many endpoints the organization has (`endpoints`), kept by each creation and deletion
 *   WEBHOOK#<webhook id> DELIVERY#<created_at>#<event id>  one event's delivery to one endpoint, newest last (TTL 30 days)
 *   OAUTH_CLIENT#<client id> CLIENT             an OAuth client of dynamic registration
 *   OAUTH_CODE#<h>    CODE                      a one-time authorization code; h = sha256(code) (TTL a day past its use)
 *   GRANTS#<org>      GRANT#<created_at>#<id>   a credit grant (source, credits, remaining, status, expiry); while an expiry
 *                                               or its warning is ahead, GSI1 = GRANTS_DUE / <due at>#<id>
 *   GRANTS#<org>      LEDGER                    the grants' ledger of an organization: its debt, and (legacy) its cutoff
 *   GRANTS#<org>      APPLIED#<event id>        the marker that a billing event was applied to the grants, with what it drew (TTL 400 days)
 *   ORG#<org>         PURCHASE#<purchase id>    a credit purchase (checkout), newest id last
 *   ORG#<org>         PURCHASES                 the organization's open checkouts (bounded) and its Stripe Customer
 *   PURCHASEKEY#<org>#<u>#<h> PURCHASEKEY       Idempotency-Key of a purchase's creation (TTL 24 h)
 *   PAYMENT#<payment intent id> SETTLED         the marker that a PaymentIntent's credits were added: put once, by the settle transaction
 *   CONSENT#<nonce>   CONSENT                   the use of an MCP consent (confirmation token or requestState): put once, by what it allowed (TTL)
 *   SOCIAL_HEALTH     <operation>#<provider>    a provider's health on one operation: calls, failures and latency bands per bucket (last hour), its breaker
 *   PAYMENTS_RECONCILER CHECKPOINT             where the payments reconciler's last pass reached (Stripe event time)
 *   ORG#<org>         AUTO_RECHARGE             auto-recharge: its settings, the saved card, the month's recharges, the one in flight;
 *                                               while an attempt is due, GSI1 = RECHARGE_DUE / <due at>#<org>
 *   ORG#<org>         INVITATION#<inv id>       an invitation by email (its id sorts by created_at: the partition lists newest first)
 *   ORG#<org>         INVITATIONS               the organization's pending invitations (bounded): id → address and expiry, versioned
 *   ORG#<org>         MEMBER_EMAIL#<address>    the address a member accepted an invitation with: that member's (so it is not invited again)
 *   INVITE_TOKEN#<h>  TOKEN                     an invitation's token, by h = sha256(token): which invitation (TTL past its expiry)
 *   INBOX#<address>   INVITATION#<inv id>       an invitation as its invitee's `GET /me` lists it (TTL as the invitation's)
 *   AUDIT#<org>       EVENT#<occurred_at>#<id>  an audit event: who changed what (TTL AUDIT_RETENTION_DAYS, at least 400 days); never updated or deleted
 */
import { createHash } from 'node:crypto';
import type { ResourceKind } from '../model.ts';
import { type TableKey, table } from './table.ts';

/** The index of memberships by organization (GSI1 in lib/db/table.ts). */
const MEMBERS_INDEX = table.globalSecondaryIndexes[0].indexName;

/** How every organization's partition starts: a stream filter's prefix (lib/alerts/crossings.ts). */
export const ORG_PARTITION_PREFIX = 'ORG#';
/** The sort key of an organization's own item. */
export const ORG_SK = 'ORG';

export const orgKey = (orgId: string): TableKey => ({ PK: `${ORG_PARTITION_PREFIX}${orgId}`, SK: ORG_SK });

/** The organization id of a key in an organization's partition (`ORG#<org>`). */
export const orgIdOfPartition = (pk: string): string => pk.slice(ORG_PARTITION_PREFIX.length);

/**
 * Every organization has an entry in one fixed partition, written with the organization (once):
 * listing them is a Query, never a Scan. Not a GSI on the organization item: that item changes
 * with every charge, and a GSI projecting it would funnel every charge of the service through one
 * index partition.
 */
export const ORG_DIRECTORY_PK = 'ORGS';
export const orgDirectoryKey = (orgId: string): TableKey => ({ PK: ORG_DIRECTORY_PK, SK: `ORG#${orgId}` });
/** The organization id of a directory entry's sort key. */
export const orgIdOfDirectoryKey = (sk: string): string => sk.slice('ORG#'.length);

export const membershipKey = (orgId: string, userId: string): TableKey => ({
  PK: `USER#${userId}`,
  SK: `MEMBER#${orgId}`,
});

export const membershipIndexKey = (orgId: string, userId: string) => ({
  GSI1PK: `ORG#${orgId}`,
  GSI1SK: `MEMBER#${userId}`,
});

/** The members of an organization: a Query on GSI1 (eventually consistent). */
export const orgMembersIndexQuery = (orgId: string) => ({
  indexName: MEMBERS_INDEX,
  GSI1PK: `ORG#${orgId}`,
  skPrefix: 'MEMBER#',
});

export const userMembershipsPrefix = (userId: string) => ({ PK: `USER#${userId}`, skPrefix: 'MEMBER#' });

export const billingEventKey = (orgId: string, createdAt: string, id: string): TableKey => ({
  PK: `ORG#${orgId}`,
  SK: `EVENT#${createdAt}#${id}`,
});

/** Sort-key bounds of the events created from `since` to `until` inclusive (ISO strings sort by time). */
export const billingEventRange = (orgId: string, since: string, until: string) => ({
  PK: `ORG#${orgId}`,
  from: `EVENT#${since}`,
  // '~' sorts after every character used in ids: every event of the millisecond `until` is inside.
  to: `EVENT#${until}#~`,
});

/** The sort key of an event without its prefix (`<created_at>#<id>`): a page cursor's position. */
export const billingEventPosition = (sk: string): string => sk.slice('EVENT#'.length);

/** The key of the event at a page cursor's position (billingEventPosition's inverse): where the next page starts. */
export const billingEventAt = (orgId: string, position: string): TableKey => ({ PK: `ORG#${orgId}`, SK: `EVENT#${position}` });

/** Every billing event of an organization: one Query on its partition. */
export const billingEventsPrefix = (orgId: string) => ({ PK: `ORG#${orgId}`, skPrefix: 'EVENT#' });

export const resourceKey = (kind: ResourceKind, id: string): TableKey => {
  const tag = kind.toUpperCase();
  return { PK: `${tag}#${id}`, SK: tag };
};

export const projectSlugKey = (orgId: string, slug: string): TableKey => ({
  PK: `ORG#${orgId}`,
  SK: `SLUG#${slug}`,
});

/** Skill names are unique case-insensitively ("Summarize" and "summarize" collide). */
export const normalizeSkillName = (name: string): string => name.normalize('NFKC').trim().toLowerCase();

export const skillNameKey = (orgId: string, name: string): TableKey => ({
  PK: `ORG#${orgId}`,
  SK: `SKILLNAME#${normalizeSkillName(name)}`,
});

export const rateLimitKey = (subject: string, windowStart: number): TableKey => ({
  PK: `RATE#${subject}`,
  SK: `WINDOW#${windowStart}`,
});

/** The UTC calendar month of `at`, as used by spending limits: "2025-01". */
export const spendMonth = (at: Date): string => at.toISOString().slice(0, 7);

/** The UTC day of `at`, as used by daily limits: "2025-01-31". */
export const spendDay = (at: Date): string => at.toISOString().slice(0, 10);

/**
 * The attribute of a month's spend counter that holds one of its days' spend (`spent_day_31`
 * for "2025-01-31"). A day lies in one month, so its counter lives in that month's item: a
 * charge adds to both in one write, and a daily limit costs no item of its own.
 */
export const daySpentAttribute = (day: string): string => `spent_day_${day.slice(8, 10)}`;

/** The day ("2025-01-31") whose spend attribute of `month`'s counter `attribute` is, or null for another attribute. */
export function spentDayOf(month: string, attribute: string): string | null {
  const match = /^spent_day_(\d{2})$/.exec(attribute);
  return match ? `${month}-${match[1]}` : null;
}

export const orgSpendKey = (orgId: string, month: string): TableKey => ({
  PK: `ORG#${orgId}`,
  SK: `SPEND#${month}`,
});

export const memberSpendKey = (orgId: string, userId: string, month: string): TableKey => ({
  PK: `ORG#${orgId}`,
  SK: `SPEND#${month}#USER#${userId}`,
});

/** Every spend counter of one month (the organization's and each member's): one Query. */
export const monthSpendPrefix = (orgId: string, month: string) => ({ PK: `ORG#${orgId}`, skPrefix: `SPEND#${month}` });

/** How every spend counter's sort key starts: a stream filter's prefix (lib/alerts/crossings.ts). */
export const SPEND_SK_PREFIX = 'SPEND#';

/**
 * A spend counter's sort key read back: its month, and whose counter it is (a member's or an API
 * key's id, or null for the organization's own); null for any other sort key.
 */
export function spendCounterOf(sk: string): { month: string; payer: string | null } | null {
  const match = /^SPEND#(\d{4}-\d{2})(?:#USER#(.+))?$/.exec(sk);
  return match ? { month: match[1] ?? '', payer: match[2] ?? null } : null;
}

/** Whose counter a month-spend sort key is: the member's id, or null for the organization's own. */
export function spendMemberOf(sk: string, month: string): string | null {
  const memberPrefix = `SPEND#${month}#USER#`;
  return sk.startsWith(memberPrefix) ? sk.slice(memberPrefix.length) : null;
}

/** Scoped per organization and caller: two callers may use the same key without colliding. */
export const idempotencyRecordKey = (orgId: string, userId: string, keyHash: string): TableKey => ({
  PK: `IDEM#${orgId}#${userId}#${keyHash}`,
  SK: 'IDEM',
});

/** A charged run that has neither delivered its result nor been refunded (no TTL: never dropped). */
export const pendingRunKey = (orgId: string, chargeId: string): TableKey => ({
  PK: `ORG#${orgId}`,
  SK: `PENDING#${chargeId}`,
});

export const pendingRunsPrefix = (orgId: string) => ({ PK: `ORG#${orgId}`, skPrefix: 'PENDING#' });

/**
 * The sweep index (GSI1) spreads pending runs over this many partitions: every paid run writes
 * and deletes one index entry, more than one partition of an index takes at high rates.
 */
export const SWEEP_SHARDS = 16;

/** The shard of a charge: from a hash of its id, so that any run can be found again by its id. */
export const sweepShard = (chargeId: string): number => (createHash('sha256').update(chargeId).digest()[0] ?? 0) % SWEEP_SHARDS;

export const sweepPartition = (shard: number): string => `SWEEP#${shard}`;

/** Sweep-index keys of a pending run: within its shard, sorted by the time it becomes due. */
export const pendingRunIndexKey = (chargeId: string, sweepAfterMs: number) => ({
  GSI1PK: sweepPartition(sweepShard(chargeId)),
  GSI1SK: `${new Date(sweepAfterMs).toISOString()}#${chargeId}`,
});

/** Upper bound (exclusive) of the index sort keys of the runs due before `nowMs`. */
export const dueBefore = (nowMs: number): string => new Date(nowMs).toISOString();

/**
 * The cached result of `operation` for one input in one organization (`inputHash`: the canonical
 * hash of the validated input). Its own partition per input: a busy organization's cache spreads
 * over the table instead of sharing its organization item's partition.
 */
/** The partition of every (operation, provider)'s health: read whole by the status page and each instance's breakers. */
export const SOCIAL_HEALTH_PK = 'SOCIAL_HEALTH';
export const socialHealthKey = (operation: string, provider: string): TableKey => ({
  PK: SOCIAL_HEALTH_PK,
  SK: `${operation}#${provider}`,
});

export const resultCacheKey = (orgId: string, operation: string, inputHash: string): TableKey => ({
  PK: `RESULT#${orgId}#${operation}#${inputHash}`,
  SK: 'RESULT',
});

/**
 * A soft-deleted resource's entry in its organization's trash (GSI1, sparse: set by the delete,
 * removed by the restore, gone with the item when TTL purges it), newest deletion last.
 */
export const trashIndexKey = (orgId: string, deletedAt: string, kind: ResourceKind, id: string) => ({
  GSI1PK: `TRASH#${orgId}`,
  GSI1SK: `${deletedAt}#${kind}#${id}`,
});

/** The trash of an organization from `sinceIso` on: a Query on GSI1 (eventually consistent). */
export const trashIndexQuery = (orgId: string, sinceIso: string) => ({
  indexName: MEMBERS_INDEX,
  GSI1PK: `TRASH#${orgId}`,
  from: sinceIso,
});

/** The spend counters of every member of an organization in `month`: one Query on its partition. */
export const memberSpendPrefix = (orgId: string, month: string) => ({ PK: `ORG#${orgId}`, skPrefix: `SPEND#${month}#USER#` });

export const apiKeyKey = (orgId: string, keyId: string): TableKey => ({ PK: `ORG#${orgId}`, SK: `APIKEY#${keyId}` });

/** An organization's API keys, by id: one Query on its partition. */
export const apiKeysPrefix = (orgId: string) => ({ PK: `ORG#${orgId}`, skPrefix: 'APIKEY#' });

/** The key id of an API key's sort key. */
export const apiKeyIdOf = (sk: string): string => sk.slice('APIKEY#'.length);

/** Every public key that signs API keys, in one partition (a handful: the current one and those being retired). */
export const SIGNING_KEYS_PK = 'SIGNING_KEYS';
export const signingKeyKey = (kid: string): TableKey => ({ PK: SIGNING_KEYS_PK, SK: `KID#${kid}` });

/** How every job's partition starts, and its own item's sort key: a stream filter's (lib/alerts/crossings.ts). */
export const JOB_PARTITION_PREFIX = 'JOB#';
export const JOB_SK = 'JOB';

/** A job and its items share a partition of their own: the organization's stays as busy as its charges make it. */
export const jobKey = (jobId: string): TableKey => ({ PK: `${JOB_PARTITION_PREFIX}${jobId}`, SK: JOB_SK });

/** Items sort by index (zero-padded: at most 1,000 a job). */
export const jobItemKey = (jobId: string, index: number): TableKey => ({
  PK: `JOB#${jobId}`,
  SK: `ITEM#${String(index).padStart(4, '0')}`,
});

export const jobItemsPrefix = (jobId: string) => ({ PK: `JOB#${jobId}`, skPrefix: 'ITEM#' });

/** The index of an item's sort key. */
export const jobItemIndexOf = (sk: string): number => Number(sk.slice('ITEM#'.length));

/** Scoped per organization and caller, like a run's key, in a key space of its own. */
export const jobIdempotencyKey = (orgId: string, userId: string, keyHash: string): TableKey => ({
  PK: `JOBKEY#${orgId}#${userId}#${keyHash}`,
  SK: 'JOBKEY',
});

/**
 * Every job queued or running, in one partition: a marker put by the creation transaction and
 * deleted by the one that ends the job (two writes per job), so that the jobs whose messages were
 * lost (an `npm start` restarted, a creation cut short) can be found without a Scan.
 */
export const ACTIVE_JOBS_PK = 'ACTIVE_JOBS';
export const activeJobKey = (jobId: string): TableKey => ({ PK: ACTIVE_JOBS_PK, SK: `JOB#${jobId}` });

/** Usage buckets: an hour or a UTC day. */
export type UsageGranularity = 'hour' | 'day';
const USAGE_GRAIN = { hour: 'H', day: 'D' } as const;

/**
 * An organization's usage counters, in a partition of their own: the aggregator's writes never
 * add to the organization's partition, which every charge already writes (docs/scaling.md).
 */
export const usagePartition = (orgId: string): string => `USAGE#${orgId}`;

/**
 * The counters of one bucket (its start, ISO 8601), operation and payer (a member's user id or an
 * API key's id): the finest grain kept, grouped in memory at read time.
 */
export const usageCounterKey = (
  orgId: string,
  granularity: UsageGranularity,
  bucketStart: string,
  operation: string,
  payer: string,
): TableKey => ({
  PK: usagePartition(orgId),
  SK: `${USAGE_GRAIN[granularity]}#${bucketStart}#${operation}#${payer}`,
});

/**
 * Sort-key bounds of the counters of the buckets from `fromIso` (included) to `toIso` (excluded):
 * every counter's key is longer than `<grain>#<bucket start>`, so no key equals the upper bound.
 */
export const usageCounterRange = (orgId: string, granularity: UsageGranularity, fromIso: string, toIso: string) => ({
  PK: usagePartition(orgId),
  from: `${USAGE_GRAIN[granularity]}#${fromIso}`,
  to: `${USAGE_GRAIN[granularity]}#${toIso}`,
});

/** The marker that a billing event was counted in usage; event ids are unique across organizations. */
export const usageMarkerKey = (eventId: string): TableKey => ({ PK: `USAGE_EVENT#${eventId}`, SK: 'COUNTED' });

/** An organization's alert settings: one item in its partition, absent until an owner first sets them. */
export const alertSettingsKey = (orgId: string): TableKey => ({ PK: `ORG#${orgId}`, SK: 'ALERTS' });

/** An alert event, by its id (deterministic: the same crossing produced again finds it). */
export const alertEventKey = (eventId: string): TableKey => ({ PK: `ALERT_EVENT#${eventId}`, SK: 'EVENT' });

/** An owners' notification endpoint, in its organization's partition. */
export const webhookEndpointKey = (orgId: string, webhookId: string): TableKey => ({ PK: `ORG#${orgId}`, SK: `WEBHOOK#${webhookId}` });

/** An organization's endpoints, by id: one Query on its partition. */
export const webhookEndpointsPrefix = (orgId: string) => ({ PK: `ORG#${orgId}`, skPrefix: 'WEBHOOK#' });

/** How many endpoints an organization has: a counter changed in the same transaction as each endpoint. */
export const webhookCountKey = (orgId: string): TableKey => ({ PK: `ORG#${orgId}`, SK: 'WEBHOOKS' });

/** An endpoint's deliveries have a partition of their own: the organization's is busy with charges. */
export const webhookDeliveriesPartition = (webhookId: string): string => `WEBHOOK#${webhookId}`;

/** One event's delivery to one endpoint, sorted by the event's time. */
export const webhookDeliveryKey = (webhookId: string, createdAt: string, eventId: string): TableKey => ({
  PK: webhookDeliveriesPartition(webhookId),
  SK: `DELIVERY#${createdAt}#${eventId}`,
});

/** An endpoint's deliveries: one Query on their partition. */
export const webhookDeliveriesPrefix = (webhookId: string) => ({ PK: webhookDeliveriesPartition(webhookId), skPrefix: 'DELIVERY#' });

/** The endpoint id of an endpoint's sort key or of its deliveries' partition (both `WEBHOOK#<id>`). */
export const webhookIdOf = (key: string): string => key.slice('WEBHOOK#'.length);

/** An OAuth client of dynamic registration (lib/db/oauth-clients.ts). */
export const oauthClientKey = (clientId: string): TableKey => ({ PK: `OAUTH_CLIENT#${clientId}`, SK: 'CLIENT' });

/** A one-time authorization code, by the SHA-256 of the code (lib/db/oauth-grants.ts). */
export const oauthCodeKey = (codeHash: string): TableKey => ({ PK: `OAUTH_CODE#${codeHash}`, SK: 'CODE' });

/**
 * A refresh token an OAuth grant was issued, by the SHA-256 of the token: which grant and client it
 * names, so that one presented again after its rotation is known for a reuse (lib/db/oauth-grants.ts).
 */
export const oauthRefreshTokenKey = (tokenHash: string): TableKey => ({ PK: `OAUTH_REFRESH#${tokenHash}`, SK: 'REFRESH' });

/** The nonce of a consent ticket, once an approval spent it: a ticket approves once (lib/db/oauth-grants.ts). */
export const oauthTicketNonceKey = (nonce: string): TableKey => ({ PK: `OAUTH_TICKET#${nonce}`, SK: 'NONCE' });

/**
 * An organization's credit grants, their ledger and its markers, in a partition of their own: the
 * ledger's writes (a draw per charge, off the request path) never add to the organization's
 * partition, which every charge already writes.
 */
export const grantsPartition = (orgId: string): string => `GRANTS#${orgId}`;
/** How every grants partition starts: a stream filter's prefix (lib/alerts/crossings.ts). */
export const GRANTS_PARTITION_PREFIX = 'GRANTS#';
/** How every grant's sort key starts: a stream filter's prefix. */
export const GRANT_SK_PREFIX = 'GRANT#';

/** A grant sorts by its creation time: the listing is newest first, the draw's ties oldest first. */
export const grantKey = (orgId: string, createdAt: string, grantId: string): TableKey => ({
  PK: grantsPartition(orgId),
  SK: `${GRANT_SK_PREFIX}${createdAt}#${grantId}`,
});

/** Every grant of an organization: one Query on its partition. */
export const grantsPrefix = (orgId: string) => ({ PK: grantsPartition(orgId), skPrefix: GRANT_SK_PREFIX });

/** The organization id of a grants partition key. */
export const orgIdOfGrantsPartition = (pk: string): string => pk.slice(GRANTS_PARTITION_PREFIX.length);

/** The key of the grant at a page cursor's position (its sort key without the prefix: `<created_at>#<id>`). */
export const grantAt = (orgId: string, position: string): TableKey => ({ PK: grantsPartition(orgId), SK: `${GRANT_SK_PREFIX}${position}` });

/** A grant's page position (its sort key without the prefix). */
export const grantPosition = (sk: string): string => sk.slice(GRANT_SK_PREFIX.length);

/** The ledger of an organization's grants (its debt, its version). */
export const grantLedgerKey = (orgId: string): TableKey => ({ PK: grantsPartition(orgId), SK: 'LEDGER' });

/** The marker that a billing event was applied to the grants (and, for a charge, what it drew). */
export const ledgerMarkerKey = (orgId: string, eventId: string): TableKey => ({ PK: grantsPartition(orgId), SK: `APPLIED#${eventId}` });

/**
 * Grants with an expiry or a warning ahead, in one index partition sorted by when the next is due
 * (sparse: a grant leaves it once expired). Few writes (a grant's creation, its warning, its
 * expiry), so one partition takes them.
 */
export const GRANTS_DUE_PK = 'GRANTS_DUE';
export const grantDueIndexKey = (dueAt: string, grantId: string) => ({ GSI1PK: GRANTS_DUE_PK, GSI1SK: `${dueAt}#${grantId}` });
/** A credit purchase (docs/funding.md): its id sorts by creation, so the partition lists newest first. */
export const purchaseKey = (orgId: string, purchaseId: string): TableKey => ({ PK: `ORG#${orgId}`, SK: `PURCHASE#${purchaseId}` });

export const purchasesPrefix = (orgId: string) => ({ PK: `ORG#${orgId}`, skPrefix: 'PURCHASE#' });

/** The organization's open checkouts (bounded) and its one Stripe Customer. */
export const purchaseSlotsKey = (orgId: string): TableKey => ({ PK: `ORG#${orgId}`, SK: 'PURCHASES' });

/** A purchase's Idempotency-Key, scoped per organization and caller, in a key space of its own. */
export const purchaseIdempotencyKey = (orgId: string, userId: string, keyHash: string): TableKey => ({
  PK: `PURCHASEKEY#${orgId}#${userId}#${keyHash}`,
  SK: 'PURCHASEKEY',
});

/**
 * The marker that a PaymentIntent was credited, put `attribute_not_exists` by the transaction
 * that credits it: keyed by the payment, not the purchase or the event, so any number of events
 * and reconciler passes naming one payment credit it once (lib/billing/settle.ts).
 */
export const paymentMarkerKey = (paymentIntentId: string): TableKey => ({ PK: `PAYMENT#${paymentIntentId}`, SK: 'SETTLED' });

/** The payments reconciler's checkpoint: one item, written by each pass (lib/billing/reconciler.ts). */
export const reconcilerCheckpointKey = (): TableKey => ({ PK: 'PAYMENTS_RECONCILER', SK: 'CHECKPOINT' });

/** An organization's auto-recharge (docs/funding.md, "Auto-recharge"): one item, written by a versioned put. */
export const AUTO_RECHARGE_SK = 'AUTO_RECHARGE';
export const autoRechargeKey = (orgId: string): TableKey => ({ PK: `${ORG_PARTITION_PREFIX}${orgId}`, SK: AUTO_RECHARGE_SK });

/**
 * Auto-recharges with an attempt due (a retry, a deferral, a new month after the cap, a recharge
 * in flight to look after), in one index partition sorted by when: few writes (one per attempt).
 */
export const RECHARGE_DUE_PK = 'RECHARGE_DUE';
export const rechargeDueIndexKey = (dueAt: string, orgId: string) => ({ GSI1PK: RECHARGE_DUE_PK, GSI1SK: `${dueAt}#${orgId}` });
/** An invitation by email (docs/invitations.md): its id starts with its creation time, so the partition sorts by it. */
export const invitationKey = (orgId: string, invitationId: string): TableKey => ({ PK: `ORG#${orgId}`, SK: `INVITATION#${invitationId}` });

/** An organization's invitations, by id (so by creation time): one Query on its partition. */
export const invitationsPrefix = (orgId: string) => ({ PK: `ORG#${orgId}`, skPrefix: 'INVITATION#' });

/** The invitation id of an invitation's sort key (in the organization's partition or an invitee's inbox). */
export const invitationIdOf = (sk: string): string => sk.slice('INVITATION#'.length);

/**
 * The organization's pending invitations in one versioned item (id → address and expiry): a
 * creation's transaction holds on its version, so that the per-address and per-organization
 * limits hold under any concurrency while expired ones stop counting without any write.
 */
export const invitationSlotsKey = (orgId: string): TableKey => ({ PK: `ORG#${orgId}`, SK: 'INVITATIONS' });

/** The address a member joined with (accepting an invitation), in its organization: no second invitation to it. */
export const memberEmailKey = (orgId: string, email: string): TableKey => ({ PK: `ORG#${orgId}`, SK: `MEMBER_EMAIL#${email}` });

/** An invitation's token, by the SHA-256 of the token (hex): the token itself is never stored. */
export const invitationTokenKey = (tokenHash: string): TableKey => ({ PK: `INVITE_TOKEN#${tokenHash}`, SK: 'TOKEN' });

/** The invitations addressed to one address, in a partition of their own: `GET /me` reads it beside the memberships. */
export const inboxPartition = (email: string): string => `INBOX#${email}`;
export const inboxEntryKey = (email: string, invitationId: string): TableKey => ({
  PK: inboxPartition(email),
  SK: `INVITATION#${invitationId}`,
});
export const inboxPrefix = (email: string) => ({ PK: inboxPartition(email), skPrefix: 'INVITATION#' });
/**
 * An organization's audit log, in a partition of its own: its own leading key lets the deployed
 * functions' roles be denied UpdateItem and DeleteItem on it (an IAM condition on
 * `dynamodb:LeadingKeys`, infra/function.ts), and a listing is one consistent Query of it.
 */
export const AUDIT_PARTITION_PREFIX = 'AUDIT#';
export const auditPartition = (orgId: string): string => `${AUDIT_PARTITION_PREFIX}${orgId}`;

/** An audit event sorts by its instant, then its id: the listing reads the partition backwards, newest first. */
export const auditEventKey = (orgId: string, occurredAt: string, id: string): TableKey => ({
  PK: auditPartition(orgId),
  SK: `EVENT#${occurredAt}#${id}`,
});

/**
 * Sort-key bounds of the events from `fromIso` (included; null: the first) to `toIso` (excluded;
 * null: the last): every event's key is longer than `EVENT#<instant>`, so none equals the upper
 * bound and BETWEEN leaves `toIso` out; `~` sorts after every instant.
 */
export const auditEventRange = (orgId: string, fromIso: string | null, toIso: string | null) => ({
  PK: auditPartition(orgId),
  from: `EVENT#${fromIso ?? ''}`,
  to: `EVENT#${toIso ?? '~'}`,
});

/** An event's page position (its sort key without the prefix: `<occurred_at>#<id>`). */
export const auditEventPosition = (sk: string): string => sk.slice('EVENT#'.length);

/** The key of the event at a page position (auditEventPosition's inverse): where the next page starts. */
export const auditEventAt = (orgId: string, position: string): TableKey => ({ PK: auditPartition(orgId), SK: `EVENT#${position}` });

/** The partition of an organization's credit lanes: one Query reads them all (the balance), or one payer's (`<payer>#`). */
export const lanePartition = (orgId: string): string => `LANE#${orgId}`;

/** Credit lane `lane` of one payer (member or API key) of a hot organization. */
export const laneKey = (orgId: string, payer: string, lane: number): TableKey => ({
  PK: lanePartition(orgId),
  SK: `${payer}#${String(lane).padStart(2, '0')}`,
});

/** The GSI1 partition listing every lane that holds credits, by when it was filled: the idle return reads it. */
export const FILLED_LANES = 'LANES_FILLED';

/** The single use of an MCP consent, by the nonce sealed in it (lib/mcp/consent.ts). */
export const consentUseKey = (nonce: string): TableKey => ({ PK: `CONSENT#${nonce}`, SK: 'CONSENT' });
