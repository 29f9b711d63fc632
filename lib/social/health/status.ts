/**
 * `GET /social/status`, `GET /social/operations?include=health` and the MCP tool `get_status`:
 * the 52 operations in catalog order, each with its status and its providers' (state.ts), and
 * the page's indicator, from the deployment's health items (one Query).
 */
import { allDescriptors } from '../catalog/descriptors.ts';
import { providersFor } from '../providers/index.ts';
import { healthSettings } from './settings.ts';
import { indicatorOf, operationStatus, type ProviderStatus, providerStatus, type Status, sinceOf } from './state.ts';
import { refreshNow } from './view.ts';

export interface OperationHealth {
  operation: string;
  network: string | null;
  status: Status;
  since: string | null;
  providers: Omit<ProviderStatus, 'breaker'>[];
}

export interface StatusBody {
  indicator: ReturnType<typeof indicatorOf>;
  updated_at: string;
  operations: OperationHealth[];
}

/** The status page now: every operation, whether or not a provider serves it here (one with none is `major_outage`, outside the indicator). */
export async function socialStatus(nowMs = Date.now()): Promise<StatusBody> {
  const settings = healthSettings();
  // The read also refreshes this instance's breakers (a status read costs its one Query either way).
  const health = await refreshNow(nowMs);
  const operations: OperationHealth[] = [];
  const served: Status[] = [];
  for (const descriptor of allDescriptors().values()) {
    const providers = providersFor(descriptor.name);
    const healths = providers.map((provider) => health.get(`${descriptor.name}#${provider.name}`));
    const statuses = providers.map((provider, index) => providerStatus(provider.displayName, healths[index], nowMs, settings));
    const status = operationStatus(statuses);
    if (providers.length > 0) served.push(status);
    const since = sinceOf(status, healths, nowMs, settings);
    operations.push({
      operation: descriptor.name,
      network: descriptor.network ?? null,
      status,
      since: since === null ? null : new Date(since).toISOString(),
      providers: statuses.map(({ breaker: _breaker, ...shown }) => shown),
    });
  }
  return { indicator: indicatorOf(served), updated_at: new Date(nowMs).toISOString(), operations };
}

/** Kept this long per instance by statusPage: a breaker's change still shows within a minute (30 s client cache + 15 s). */
const KEEP_MS = 15_000;
let kept: { body: Promise<StatusBody>; untilMs: number } | undefined;

/**
 * The status page as the status route, the listing's `include=health` and the MCP tool
 * `get_status` serve it: one Query at most every 15 s per instance (requests that arrive while it
 * is read share the read), the same words in all three. A failed read is not kept.
 */
export function statusPage(nowMs = Date.now()): Promise<StatusBody> {
  if (!kept || kept.untilMs <= nowMs) {
    const entry = { body: socialStatus(nowMs), untilMs: nowMs + KEEP_MS };
    kept = entry;
    entry.body.catch(() => {
      if (kept === entry) kept = undefined;
    });
  }
  return kept.body;
}

/** For tests: forget the page kept in memory. */
export const forgetStatusPage = (): void => {
  kept = undefined;
};
