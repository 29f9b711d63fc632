/**
 * Where the credits went: the usage report of an organization (owners), or of the caller's own
 * runs (any other member, an API key). One DynamoDB round trip: the membership and the window's
 * counters are read together, and a caller who may not read gets the same answer as if the
 * counters had not been read (404).
 */
import { membershipOfCaller } from '../auth/access.ts';
import { readUsageCounters } from '../db/usage.ts';
import { notFound } from '../errors.ts';
import type { Caller } from '../model.ts';
import { type UsageQuery, type UsageReport, type UsageWindow, usageReport, usageWindow } from './report.ts';

const boundsOf = (window: UsageWindow) => ({ fromIso: new Date(window.fromMs).toISOString(), toIso: new Date(window.toMs).toISOString() });

export async function getUsage(caller: Caller, orgId: string, query: UsageQuery, nowMs = Date.now()): Promise<UsageReport> {
  const window = usageWindow(query, nowMs);
  const bounds = boundsOf(window);
  // An API key is never an owner: its own counters only, filtered by DynamoDB. A user's role is
  // read in the same round trip as the counters, so theirs are picked from the organization's.
  const [membership, counters] = await Promise.all([
    membershipOfCaller(caller, orgId),
    readUsageCounters(orgId, window.granularity, bounds, caller.apiKey ? { apiKey: caller.apiKey.id } : 'organization'),
  ]);
  if (!membership) throw notFound();
  const own =
    membership.role === 'owner'
      ? counters
      : counters.filter((counter) => (caller.apiKey ? counter.apiKey === caller.apiKey.id : counter.member === caller.userId));
  return usageReport(window, own);
}

/** The whole organization's report, for operators (the admin CLI): no caller, no membership. */
export async function organizationUsage(orgId: string, window: UsageWindow): Promise<UsageReport> {
  return usageReport(window, await readUsageCounters(orgId, window.granularity, boundsOf(window), 'organization'));
}
