/**
 * The console's pure logic: who may see and do what, the screens, limits as meters, the usage
 * chart's series, CSV pages, the inputs people type. No DOM and no fetch, so the unit tests
 * (test/console/model.unit.test.ts) run it in Node.
 */

export type Role = 'viewer' | 'editor' | 'owner';
export type TokenKind = 'user' | 'api_key';

/** What the caller is in the chosen workspace: the role `GET /me` gives, and the kind of token. */
export interface Access {
  role: Role;
  tokenKind: TokenKind;
}

/**
 * What the console offers, by the API's rules (lib/routes.ts descriptions): billing events are the
 * owners'; buying credits, auto-recharge, the card, the grants, keys, members, settings and
 * notification endpoints are managed by owners with a user's token (an API key is refused
 * `api_key_not_allowed`); the trash and a job's cancel are editors' and owners'. What is not offered is never a button that would answer 403.
 */
export function permissionsOf(access: Access) {
  const owner = access.role === 'owner';
  const manager = owner && access.tokenKind === 'user';
  const editor = access.role === 'editor' || owner;
  return {
    billingEvents: owner,
    // Buying, auto-recharge, the card and the grants: owners with a user's token (a checkout needs a person).
    funding: manager,
    manageOrganization: manager,
    apiKeys: manager,
    members: manager,
    editAlerts: manager,
    webhooks: manager,
    trash: editor,
    cancelJobs: editor,
    auditLog: manager,
  };
}
export type Permissions = ReturnType<typeof permissionsOf>;

export type Screen = 'overview' | 'usage' | 'billing' | 'events' | 'keys' | 'apps' | 'members' | 'alerts' | 'trash' | 'jobs' | 'audit';

export const SCREENS: readonly { id: Screen; label: string; allowed: (permissions: Permissions) => boolean }[] = [
  { id: 'overview', label: 'Overview', allowed: () => true },
  { id: 'usage', label: 'Usage', allowed: () => true },
  // `#billing` is where a 402's billing_url and a checkout's return land (lib/billing/billing-url.ts).
  { id: 'billing', label: 'Billing', allowed: (p) => p.funding },
  { id: 'events', label: 'Billing events', allowed: (p) => p.billingEvents },
  { id: 'keys', label: 'API keys', allowed: (p) => p.apiKeys },
  // The OAuth connections are keys (created_via "oauth"): whoever may list keys sees them.
  { id: 'apps', label: 'Connected apps', allowed: (p) => p.apiKeys },
  { id: 'members', label: 'Members', allowed: (p) => p.members },
  { id: 'alerts', label: 'Alerts', allowed: () => true },
  { id: 'trash', label: 'Trash', allowed: (p) => p.trash },
  { id: 'jobs', label: 'Jobs', allowed: () => true },
  { id: 'audit', label: 'Audit log', allowed: (p) => p.auditLog },
];

export const screensFor = (permissions: Permissions): Screen[] =>
  SCREENS.filter((screen) => screen.allowed(permissions)).map((screen) => screen.id);

/** `#keys` → `keys`; an unknown or not allowed screen is the overview. */
export function screenOf(hash: string, allowed: readonly Screen[]): Screen {
  const id = hash.replace(/^#\/?/, '');
  return (allowed as readonly string[]).includes(id) ? (id as Screen) : 'overview';
}

/**
 * `1234.5` → `1,234.5`. Not Intl: a browser started with a locale its ICU does not know (LANG=C
 * gives `en-US@posix`) throws from `new Intl.NumberFormat`, and a console must render anyway.
 */
export function formatNumber(value: number): string {
  const [whole = '0', fraction] = String(Math.abs(value)).split('.');
  return `${value < 0 ? '-' : ''}${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${fraction ? `.${fraction}` : ''}`;
}

export const formatCredits = (credits: number): string => `${formatNumber(credits)} ${Math.abs(credits) === 1 ? 'credit' : 'credits'}`;

/** `2026-07-08T14:03:05.120Z` → `2026-07-08 14:03 UTC`: the API's UTC, the same for everyone. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const match = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d)/.exec(iso);
  return match ? `${match[1]} ${match[2]} UTC` : iso;
}

export interface Meter {
  /** Spent over the limit, 0 to 1 (capped), or null with no limit. */
  ratio: number | null;
  text: string;
  level: 'ok' | 'warn' | 'over';
}

/** Spend against a limit, as a person reads it. */
export function meterOf(spent: number, limit: number | null): Meter {
  if (limit === null) return { ratio: null, text: `${formatCredits(spent)} spent, no limit`, level: 'ok' };
  const ratio = limit === 0 ? (spent > 0 ? 1 : 0) : spent / limit;
  const percent = limit === 0 ? (spent > 0 ? 100 : 0) : Math.round(ratio * 100);
  return {
    ratio: Math.min(1, ratio),
    text: `${formatNumber(spent)} of ${formatCredits(limit)} (${percent}%)`,
    level: spent >= limit && limit > 0 ? 'over' : limit === 0 ? 'over' : ratio >= 0.8 ? 'warn' : 'ok',
  };
}

/**
 * A consent threshold (`confirm_above`) as a person reads it: MCP tool calls quoted above it wait
 * for the user's yes (docs/mcp.md, "Consent"); null never asks.
 */
export const consentText = (confirmAbove: number | null): string =>
  confirmAbove === null ? 'MCP calls never ask first' : `MCP calls above ${formatCredits(confirmAbove)} ask first`;

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** A limit field: empty is none (null), else a whole number of credits. */
export function parseLimit(text: string): Parsed<number | null> {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: true, value: null };
  if (!/^\d{1,12}$/.test(trimmed)) return { ok: false, error: 'a whole number of credits, or empty for no limit' };
  return { ok: true, value: Number(trimmed) };
}

/** Allowed addresses: addresses or CIDRs separated by commas, spaces or lines; none is anywhere (null). */
export function parseAddresses(text: string): string[] | null {
  const entries = text
    .split(/[\s,]+/)
    .map((entry) => entry.trim())
    .filter(Boolean);
  return entries.length > 0 ? entries : null;
}

/** Threshold percentages: `80, 100` → [80, 100]. */
export function parseThresholds(text: string): Parsed<number[]> {
  const entries = text
    .split(/[\s,]+/)
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) return { ok: false, error: 'at least one percentage, such as 80' };
  if (entries.some((entry) => !/^\d{1,3}$/.test(entry)))
    return { ok: false, error: 'whole percentages from 1 to 100, separated by commas' };
  return { ok: true, value: entries.map(Number) };
}

const DAY_MS = 86_400_000;

/** The usage chart's window: the last 30 UTC days, today included (`to` is tomorrow's midnight). */
export function usageWindow(nowMs: number): { from: string; to: string } {
  const tomorrow = Math.floor(nowMs / DAY_MS) * DAY_MS + DAY_MS;
  return { from: new Date(tomorrow - 30 * DAY_MS).toISOString(), to: new Date(tomorrow).toISOString() };
}

export type GroupBy = 'operation' | 'network' | 'member' | 'api_key';

export const GROUP_BY_LABELS: Record<GroupBy, string> = {
  operation: 'operation',
  network: 'network',
  member: 'member',
  api_key: 'API key',
};

export interface UsageResult {
  operation?: string | null;
  network?: string | null;
  member?: string | null;
  api_key?: string | null;
  runs: number;
  charged: number;
  refunded: number;
  net: number;
}
export interface UsageBucket {
  start: string;
  end: string;
  results: UsageResult[];
}

/** A result's group, as a person reads it: a key's runs have no member, a member's no key. */
export function groupLabel(groupBy: GroupBy, result: UsageResult): string {
  const value = result[groupBy];
  if (value) return value;
  return groupBy === 'member' ? 'API keys' : groupBy === 'api_key' ? 'members (no key)' : 'unknown';
}

export interface UsageTotals {
  group: string;
  runs: number;
  charged: number;
  refunded: number;
  net: number;
}

export interface UsageSeries {
  /** Each bucket's start, in epoch seconds (uPlot's x values). */
  days: number[];
  /** Groups by net credits, most first; beyond `maxGroups`, the rest as one `other`. */
  groups: string[];
  /** Net credits per group (in `groups` order) per day. */
  values: number[][];
  totals: UsageTotals[];
}

/** The chart's series from the usage report: net credits per group and day. */
export function usageSeries(buckets: readonly UsageBucket[], groupBy: GroupBy, maxGroups = 8): UsageSeries {
  const totals = new Map<string, UsageTotals>();
  for (const bucket of buckets) {
    for (const result of bucket.results) {
      const group = groupLabel(groupBy, result);
      const total = totals.get(group) ?? { group, runs: 0, charged: 0, refunded: 0, net: 0 };
      total.runs += result.runs;
      total.charged += result.charged;
      total.refunded += result.refunded;
      total.net += result.net;
      totals.set(group, total);
    }
  }
  const ranked = [...totals.values()].sort((a, b) => b.net - a.net || b.runs - a.runs || a.group.localeCompare(b.group));
  const shown = ranked.length > maxGroups ? ranked.slice(0, maxGroups - 1).map((total) => total.group) : ranked.map((total) => total.group);
  const groups = ranked.length > maxGroups ? [...shown, 'other'] : shown;
  const index = new Map(shown.map((group, i) => [group, i]));
  const values = groups.map(() => buckets.map(() => 0));
  buckets.forEach((bucket, day) => {
    for (const result of bucket.results) {
      const row = values[index.get(groupLabel(groupBy, result)) ?? groups.length - 1];
      if (row) row[day] = (row[day] ?? 0) + result.net;
    }
  });
  return { days: buckets.map((bucket) => Date.parse(bucket.start) / 1000), groups, values, totals: ranked };
}

/** Stacked bars: each series the sum of itself and those below it. */
export function stacked(values: readonly number[][]): number[][] {
  const sums: number[][] = [];
  values.forEach((row, i) => {
    sums.push(row.map((value, day) => value + (i > 0 ? (sums[i - 1]?.[day] ?? 0) : 0)));
  });
  return sums;
}

/** The `rel="next"` URL of a `Link` header, or null. */
export function nextLink(header: string | null): string | null {
  if (!header) return null;
  for (const part of header.split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part.trim());
    if (match?.[1]) return match[1];
  }
  return null;
}

/** CSV pages of one listing as one file: the header row once. */
export function joinCsvPages(pages: readonly string[]): string {
  return pages
    .map((page, i) => {
      if (i === 0) return page.endsWith('\r\n') || page === '' ? page : `${page}\r\n`;
      const body = page.slice(page.indexOf('\r\n') + 2);
      return body === '' || body.endsWith('\r\n') ? body : `${body}\r\n`;
    })
    .join('');
}

/** A key's standing at `nowMs`, as the keys list gives what decides it. */
export function keyStatus(key: { revoked_at: string | null; expires_at: string }, nowMs: number): 'active' | 'revoked' | 'expired' {
  if (key.revoked_at) return 'revoked';
  return Date.parse(key.expires_at) <= nowMs ? 'expired' : 'active';
}

/** What the connected-apps screen needs of a key from the keys list. */
export interface GrantLike {
  id: string;
  created_at: string;
  revoked_at: string | null;
  expires_at: string;
  created_via?: 'oauth';
  client_id?: string;
  client_name?: string | null;
  redirect_uri?: string | null;
}

export interface ConnectedApp<G extends GrantLike> {
  clientId: string;
  /** The client's own name (newest grant's), else its redirect host: never more trusted than that. */
  name: string;
  /** Where its sign-in returned to, newest first; an unparseable or unrecorded one is left out. */
  redirectHosts: string[];
  active: G[];
  ended: G[];
}

/** `https://agent.example/callback` → `agent.example`; null when there is no URL to read. */
export function hostOf(uri: string | null | undefined): string | null {
  if (!uri) return null;
  try {
    return new URL(uri).host || null;
  } catch {
    return null;
  }
}

/**
 * The OAuth grants among the keys, one entry per client: its grants still standing and those
 * revoked or expired, each newest first; clients with a standing grant first, then by their
 * newest grant.
 */
export function connectedApps<G extends GrantLike>(keys: readonly G[], nowMs: number): ConnectedApp<G>[] {
  const byClient = new Map<string, G[]>();
  for (const key of keys) {
    if (key.created_via !== 'oauth' || !key.client_id) continue;
    byClient.set(key.client_id, [...(byClient.get(key.client_id) ?? []), key]);
  }
  const apps = [...byClient].map(([clientId, grants]): ConnectedApp<G> => {
    const newestFirst = [...grants].sort((a, b) => b.created_at.localeCompare(a.created_at) || a.id.localeCompare(b.id));
    const redirectHosts = [...new Set(newestFirst.map((grant) => hostOf(grant.redirect_uri)).filter((host): host is string => !!host))];
    const named = newestFirst.find((grant) => grant.client_name)?.client_name;
    return {
      clientId,
      name: named ?? redirectHosts[0] ?? hostOf(clientId) ?? clientId,
      redirectHosts,
      active: newestFirst.filter((grant) => keyStatus(grant, nowMs) === 'active'),
      ended: newestFirst.filter((grant) => keyStatus(grant, nowMs) !== 'active'),
    };
  });
  const newest = (app: ConnectedApp<G>) => (app.active[0] ?? app.ended[0])?.created_at ?? '';
  return apps.sort(
    (a, b) =>
      Number(b.active.length > 0) - Number(a.active.length > 0) ||
      newest(b).localeCompare(newest(a)) ||
      a.clientId.localeCompare(b.clientId),
  );
}

export type JobStatus = 'queued' | 'running' | 'completed' | 'cancelled';

/** How often a job's progress is read while it runs: the contract's ceiling (docs/console.md). */
export const JOB_POLL_MS = 5_000;

export const jobIsActive = (status: JobStatus): boolean => status === 'queued' || status === 'running';

/** Items finished out of all, and as a whole percentage. */
export function jobProgress(job: { total: number; succeeded: number; failed: number; cancelled: number }): {
  done: number;
  percent: number;
} {
  const done = job.succeeded + job.failed + job.cancelled;
  return { done, percent: job.total === 0 ? 100 : Math.floor((done / job.total) * 100) };
}

/** A JWT's expiry (epoch ms) from its payload, read without verifying it (the API verifies); null if none. */
export function tokenExpiry(token: string): number | null {
  const payload = token.split('.')[1];
  if (!payload) return null;
  try {
    const json = JSON.parse(
      atob(
        payload
          .replace(/-/g, '+')
          .replace(/_/g, '/')
          .padEnd(Math.ceil(payload.length / 4) * 4, '='),
      ),
    ) as {
      exp?: unknown;
    };
    return typeof json.exp === 'number' ? json.exp * 1000 : null;
  } catch {
    return null;
  }
}

/** What to do about an error code, beyond the API's own message. */
export function adviceFor(code: string | undefined): string | undefined {
  switch (code) {
    case 'insufficient_credits':
      return 'An owner can buy credits on the Billing screen, or turn on auto-recharge there.';
    case 'payment_method_required':
      return 'Save a card first: auto-recharge pays with it.';
    case 'purchase_limit_reached':
      return 'Pay one of the open checkouts below, or let one expire.';
    case 'api_key_not_allowed':
      return 'Sign in as an owner with your own account: an API key cannot do this.';
    case 'spending_limit_exceeded':
      return 'An owner can raise the limit (Overview, Members or API keys), or wait until it resets.';
    case 'max_credits_exceeded':
      return 'Send a higher Max-Credits, or none.';
    case 'rate_limited':
      return 'Wait a moment and try again.';
    case 'last_owner':
      return 'Make another member an owner first.';
    case 'slug_taken':
    case 'name_taken':
      return 'A live resource holds that name: rename or delete it, then restore this one.';
    case 'parent_deleted':
      return 'Restore its project first.';
    case 'webhook_limit_reached':
      return 'Delete an endpoint you no longer need first.';
    case 'validation_failed':
      return 'Correct the field named above and try again.';
    default:
      return undefined;
  }
}

/** Currencies whose amounts have no minor unit (Stripe's list, the ones a deployment may plausibly sell in). */
const ZERO_DECIMAL = new Set([
  'bif',
  'clp',
  'djf',
  'gnf',
  'jpy',
  'kmf',
  'krw',
  'mga',
  'pyg',
  'rwf',
  'ugx',
  'vnd',
  'vuv',
  'xaf',
  'xof',
  'xpf',
]);

/** A price in minor units as a person reads it: `2500, 'usd'` → `25.00 USD`. Not Intl (formatNumber says why). */
export function formatMoney(minor: number, currency: string): string {
  const code = currency.toUpperCase();
  if (ZERO_DECIMAL.has(currency.toLowerCase())) return `${formatNumber(minor)} ${code}`;
  const whole = Math.trunc(Math.abs(minor) / 100);
  const cents = String(Math.abs(minor) % 100).padStart(2, '0');
  return `${minor < 0 ? '-' : ''}${formatNumber(whole)}.${cents} ${code}`;
}

/** A whole number from `min` to `max` typed by a person (spaces and commas allowed as separators). */
export function parseWhole(text: string, min: number, max: number): Parsed<number> {
  const trimmed = text.trim().replace(/[\s,]/g, '');
  const rule = `a whole number from ${formatNumber(min)} to ${formatNumber(max)}`;
  if (!/^\d{1,12}$/.test(trimmed)) return { ok: false, error: rule };
  const value = Number(trimmed);
  return value < min || value > max ? { ok: false, error: rule } : { ok: true, value };
}

export type PurchaseStatus = 'open' | 'processing' | 'paid' | 'failed' | 'expired';

/** A purchase that will change no more (docs/funding.md): the console stops following it. */
export const purchaseSettled = (status: PurchaseStatus): boolean => status === 'paid' || status === 'failed' || status === 'expired';

/**
 * When a purchase being paid is read again after its `reads`-th read: every 250 ms for the first
 * 2 s (the webhook usually settles it in well under a second: docs/performance.md), then every
 * second; and for how long after the person came back.
 */
export const purchasePollDelay = (reads: number): number => (reads < 8 ? 250 : 1_000);
export const PURCHASE_FOLLOW_MS = 5 * 60_000;
/** How long a card saved on Stripe's page is waited for, back on the screen (the contract: current within 5 s). */
export const CARD_FOLLOW_MS = 30_000;

/** Why auto-recharge turned itself off, as its owner reads it. */
export function disabledReasonText(reason: string | null): string | undefined {
  switch (reason) {
    case null:
      return undefined;
    case 'consecutive_failures':
      return 'three payments in a row failed';
    case 'dispute':
      return 'a payment was disputed';
    case 'payment_method_removed':
      return 'the card was removed';
    default:
      return reason;
  }
}

/** Stripe's card brand (`visa`, `amex`, …) as printed on the card. */
export function cardBrand(brand: string): string {
  const names: Record<string, string> = {
    amex: 'American Express',
    diners: 'Diners Club',
    discover: 'Discover',
    eftpos_au: 'EFTPOS',
    jcb: 'JCB',
    mastercard: 'Mastercard',
    unionpay: 'UnionPay',
    visa: 'Visa',
  };
  return names[brand] ?? brand;
}

/** A value of an audit event as a person reads it: `null` is "none", text as it is, the rest as JSON. */
const auditValue = (value: unknown): string =>
  value === null || value === undefined ? 'none' : typeof value === 'string' ? value : JSON.stringify(value);

/**
 * What an audit event says, one line per field: a change as `field: before → after`, a detail as
 * `field: value` (docs/audit.md). Null details, and an event that names nothing, give no line.
 */
export function auditLines(
  changes: Record<string, { before: unknown; after: unknown }> | null,
  details: Record<string, unknown> | null,
): string[] {
  if (changes) return Object.entries(changes).map(([field, { before, after }]) => `${field}: ${auditValue(before)} → ${auditValue(after)}`);
  return Object.entries(details ?? {})
    .filter(([, value]) => value !== null && value !== undefined)
    .map(([field, value]) => `${field}: ${auditValue(value)}`);
}

/** The status words of GET /social/status as a person reads them (docs/social-operations.md, "Status"). */
const STATUS_WORDS: Record<string, string> = {
  degraded_performance: 'slow',
  partial_outage: 'served by a backup provider',
  major_outage: 'not available',
};

/** The operations of the status page that are not `operational`, each with what it means and since when. */
export function notWorking(
  operations: readonly { operation: string; status: string; since: string | null }[],
): { operation: string; words: string }[] {
  return operations
    .filter((entry) => entry.status !== 'operational')
    .map((entry) => ({
      operation: entry.operation,
      words: `${STATUS_WORDS[entry.status] ?? entry.status}${entry.since ? ` since ${formatTime(entry.since)}` : ''}`,
    }));
}
